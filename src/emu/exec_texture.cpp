// Texture and surface instructions (texture.isa, texture.cpp) and the video instructions (video.isa, video.cpp).
#include <mutex>
#include "texture.hpp"
#include "video.hpp"

#include "runner.hpp"

namespace ptx::emu::engine {

// Texture and surface instructions (texture.cpp), lane by lane; texels and surface elements are
// global memory read and written through the usual checks.
void Runner::texture(Warp& w, const DInst& in, uint32_t exec) {
  struct Access final : TextureWarp {
    Runner& r;
    Warp& w;
    Access(Runner& runner, Warp& warp) : r(runner), w(warp) {}
    uint64_t value(const Opnd& o, int lane) override { return r.value(w, o, lane); }
    void write(const Opnd& d, int lane, uint64_t v, Ty t) override { r.write(w, d, lane, v, t); }
    void write_pred(uint32_t slot, int lane, bool v) override { r.reg(w, slot, lane) = v; }
    uint8_t* global(uint64_t address, unsigned size, bool store, int lane) override {
      return r.resolve(w, lane, Space::Global, address, size, store);
    }
    const Memory& memory() const override { return r.mem_; }
    std::mutex& atomic_lock(const void* p) override { return engine::atomic_lock(p); }
    [[noreturn]] void fail(int lane, const std::string& what) override { r.fail(w, lane, what); }
  } access(*this, w);
  texture_execute(*p_.textures[in.table], access, exec);
}

// vadd ... vset4, lane by lane.
void Runner::video(Warp& w, const DInst& in, uint32_t exec) {
  const VideoInst& v = p_.video[in.table];
  for (uint32_t m = exec; m; m &= m - 1) {
    const int l = std::countr_zero(m);
    const uint32_t r = video_execute(v, static_cast<uint32_t>(value(w, in.ops[1], l)), static_cast<uint32_t>(value(w, in.ops[2], l)),
                                     v.has_c ? static_cast<uint32_t>(value(w, in.ops[3], l)) : 0);
    write(w, in.ops[0], l, r, Ty{'b', 32});
  }
  return;
}

}  // namespace ptx::emu::engine
