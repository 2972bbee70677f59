// The kernels of the ahead-of-time consumer: traced at build time for each target.
#include <ptxpp/dsl.hpp>
#include <ptxpp/runtime/aot.hpp>

using namespace ptx::types;
namespace inst = ptx::inst;

int main(int argc, char** argv) {
  return ptx::aot::generator_main(argc, argv, [](const std::string& arch) {
    auto axpy = ptx::kernel("axpy").in(ptx::tensor(f32, {1024})).out(ptx::tensor(f32, {1024})).scalar("a", f32).block(256).grid(4).arch(arch).body(
        [](ptx::Tensor x, ptx::Tensor y, ptx::Scalar a) {
          ptx::Reg px = x.global_ptr(), py = y.global_ptr();
          ptx::Reg cta = ptx::read(ptx::special::ctaid.x(), u32);
          ptx::Reg tid = ptx::read(ptx::special::tid.x(), u32);
          ptx::Reg i(u32);
          inst::mad.lo.u32(i, cta, 256u, tid);
          ptx::Reg off = i * 4;
          ptx::Reg ax = px + off, ay = py + off;
          ptx::Reg xv(f32), yv(f32);
          inst::ld.global.f32(xv, ptx::addr(ax));
          inst::ld.global.f32(yv, ptx::addr(ay));
          ptx::Reg av = a.load();
          inst::fma.rn.f32(yv, av, xv, yv);
          inst::st.global.f32(ptx::addr(ay), yv);
          ptx::ret();
        });
    return std::vector<std::shared_ptr<const ptx::Traced>>{axpy.trace()};
  });
}
