// ptxpp run: a kernel of a PTX file on the CPU emulator (or, with --device gpu, on
// the GPU through the runtime), with buffers from files, zeros or hex, and dumps.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <bit>
#include <cerrno>
#include <filesystem>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "ptxpp/emu/emulator.hpp"
#include "ptxpp/ir/queries.hpp"
#include "ptxpp/runtime.hpp"
#include "ptxpp/text/parser.hpp"
#include "output.hpp"
#include "status.hpp"
#include "usage.hpp"

namespace ptxpp_cli {

namespace {

struct RunArgs {
  std::string file, entry, grid = "1", block = "1", cluster = "1", device = "cpu";
  std::string smem = "0";
  std::vector<std::string> bufs, args, dumps;
  // The emulator's limits on the command line: low enough that a hung kernel is reported within seconds.
  std::string max_steps = "268435456", timeout = "20", max_memory = "4294967296";
  bool progress = false, quiet = false;
};

struct Usage : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T>
T number(std::string_view text, std::string_view what) {
  T v{};
  const char* first = text.data();
  const char* last = text.data() + text.size();
  std::from_chars_result r;
  if constexpr (std::is_floating_point_v<T>) {
    r = std::from_chars(first, last, v);
  } else {
    int base = 10;
    if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) first += 2, base = 16;
    r = std::from_chars(first, last, v, base);
  }
  if (r.ec != std::errc{} || r.ptr != last || text.empty())
    throw Usage(fmt::format("{}: '{}' is not a valid number{}", what, text,
                            r.ec == std::errc::result_out_of_range ? " (out of range)" : ""));
  return v;
}

ptx::Dim3 dims(const std::string& text, const char* flag) {
  ptx::Dim3 d;
  uint32_t* out[3] = {&d.x, &d.y, &d.z};
  size_t i = 0, start = 0;
  for (;;) {
    const size_t comma = text.find(',', start);
    if (i == 3) throw Usage(fmt::format("{} {}: at most three dimensions X[,Y[,Z]]", flag, text));
    *out[i++] = number<uint32_t>(std::string_view(text).substr(start, comma - start), flag);
    if (*out[i - 1] == 0) throw Usage(fmt::format("{} {}: dimensions must be positive", flag, text));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return d;
}

uint16_t to_half(float f) {  // IEEE binary16, round to nearest even
  const uint32_t x = std::bit_cast<uint32_t>(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((x >> 23) & 0xFF) - 127 + 15;
  uint32_t mant = x & 0x7FFFFFu;
  if (((x >> 23) & 0xFF) == 0xFF) return static_cast<uint16_t>(sign | 0x7C00u | (mant ? 0x200u : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7C00u);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000u;
    const uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t h = mant >> shift;
    const uint32_t rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (h & 1))) ++h;
    return static_cast<uint16_t>(sign | h);
  }
  uint32_t h = (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  const uint32_t rem = mant & 0x1FFFu;
  if (rem > 0x1000u || (rem == 0x1000u && (h & 1))) ++h;
  return static_cast<uint16_t>(sign | h);
}

uint16_t to_bf16(float f) {
  const uint32_t x = std::bit_cast<uint32_t>(f);
  if (std::isnan(f)) return 0x7FC0;
  return static_cast<uint16_t>((x + 0x7FFFu + ((x >> 16) & 1)) >> 16);
}

ptx::emu::Arg scalar_arg(const std::string& spec) {
  const size_t colon = spec.find(':');
  const std::string type = spec.substr(0, colon);
  const std::string_view value = std::string_view(spec).substr(colon + 1);
  using ptx::emu::Arg;
  const std::string what = "--arg " + spec;
  if (type == "u8") return Arg::of(number<uint8_t>(value, what));
  if (type == "u16") return Arg::of(number<uint16_t>(value, what));
  if (type == "u32") return Arg::of(number<uint32_t>(value, what));
  if (type == "u64") return Arg::of(number<uint64_t>(value, what));
  if (type == "s8") return Arg::of(number<int8_t>(value, what));
  if (type == "s16") return Arg::of(number<int16_t>(value, what));
  if (type == "s32") return Arg::of(number<int32_t>(value, what));
  if (type == "s64") return Arg::of(number<int64_t>(value, what));
  if (type == "f32") return Arg::of(number<float>(value, what));
  if (type == "f64") return Arg::of(number<double>(value, what));
  if (type == "f16") return Arg::of(to_half(number<float>(value, what)));
  if (type == "bf16") return Arg::of(to_bf16(number<float>(value, what)));
  throw Usage(fmt::format("--arg {}: unknown type '{}' (u8..u64, s8..s64, f16, bf16, f32, f64)", spec, type));
}

// A regular file's bytes, at most `limit` of them (not a directory, device or pipe: /dev/zero never ends).
std::vector<uint8_t> file_bytes(const std::string& name, const std::string& path, uint64_t limit) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (ec) throw Usage(fmt::format("--buf {}=file:{}: {}", name, path, ec.message()));
  if (std::filesystem::is_directory(status)) throw Usage(fmt::format("--buf {}=file:{}: is a directory", name, path));
  if (!std::filesystem::is_regular_file(status))
    throw Usage(fmt::format("--buf {}=file:{}: not a regular file (a device or a pipe has no size to copy)", name, path));
  const uint64_t size = std::filesystem::file_size(path, ec);
  if (ec) throw Usage(fmt::format("--buf {}=file:{}: {}", name, path, ec.message()));
  if (size > limit) throw Usage(fmt::format("--buf {}=file:{}: {} bytes, more than --max-memory ({})", name, path, size, limit));
  std::ifstream f(path, std::ios::binary);
  std::vector<uint8_t> bytes(size);
  if (!f || !f.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size)) || f.peek() != EOF)
    throw Usage(fmt::format("--buf {}=file:{}: cannot read it whole ({})", name, path, f.bad() ? std::strerror(errno) : "it changed size"));
  return bytes;
}

std::vector<uint8_t> buffer_bytes(const std::string& name, const std::string& spec, uint64_t limit) {
  const size_t colon = spec.find(':');
  if (colon == std::string::npos) throw Usage(fmt::format("--buf {}={}: SPEC is file:PATH, zeros:BYTES or hex:HEXBYTES", name, spec));
  const std::string kind = spec.substr(0, colon), rest = spec.substr(colon + 1);
  if (kind == "zeros") {
    const uint64_t bytes = number<uint64_t>(rest, "--buf " + name);
    if (bytes > limit) throw Usage(fmt::format("--buf {}={}: {} bytes, more than --max-memory ({})", name, spec, bytes, limit));
    return std::vector<uint8_t>(bytes, 0);
  }
  if (kind == "hex") {
    if (rest.size() % 2) throw Usage(fmt::format("--buf {}: an odd number of hex digits", name));
    std::vector<uint8_t> out;
    for (size_t i = 0; i < rest.size(); i += 2) {
      uint8_t b = 0;
      const auto r = std::from_chars(rest.data() + i, rest.data() + i + 2, b, 16);
      if (r.ec != std::errc{} || r.ptr != rest.data() + i + 2) throw Usage(fmt::format("--buf {}: '{}' is not hex", name, rest.substr(i, 2)));
      out.push_back(b);
    }
    return out;
  }
  if (kind == "file") return file_bytes(name, rest, limit);
  throw Usage(fmt::format("--buf {}={}: SPEC is file:PATH, zeros:BYTES or hex:HEXBYTES", name, spec));
}

std::pair<std::string, std::string> name_value(const std::string& s, const char* flag) {
  const size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) throw Usage(fmt::format("{} {}: expected NAME=...", flag, s));
  return {s.substr(0, eq), s.substr(eq + 1)};
}

ptx::DType dtype_of(const std::string& spec) {
  static const std::map<std::string, ptx::DType> kTypes = {
      {"u8", ptx::DType::u8},   {"u16", ptx::DType::u16}, {"u32", ptx::DType::u32}, {"u64", ptx::DType::u64},
      {"s8", ptx::DType::s8},   {"s16", ptx::DType::s16}, {"s32", ptx::DType::s32}, {"s64", ptx::DType::s64},
      {"f16", ptx::DType::b16}, {"bf16", ptx::DType::b16}, {"f32", ptx::DType::f32}, {"f64", ptx::DType::f64}};
  auto it = kTypes.find(spec.substr(0, spec.find(':')));
  return it == kTypes.end() ? ptx::DType::none : it->second;
}

// Writes a --dump file through the checked output helper: a full disk is an error, not a short file.
void write_dump(const std::string& name, const std::string& path, const uint8_t* bytes, size_t size) {
  const std::string problem = try_write_output(path, std::string_view(reinterpret_cast<const char*>(bytes), size));
  if (!problem.empty()) throw ptx::emu::Error(fmt::format("--dump {}={}: {}", name, path, problem));
}

// --device gpu: the same run through the runtime (the CUDA driver, loaded at run time).
void run_gpu(const RunArgs& a, const std::string& text, const ptx::ir::Module& m, const ptx::emu::LaunchConfig& cfg) {
  const ptx::Device dev = ptx::device::gpu(0);
  // the kernel's parameters, from its declaration
  const ptx::ir::Function* fn = nullptr;
  for (const auto& f : m.functions)
    if (m.text(f.name) == a.entry && f.has_body()) fn = &f;
  if (!fn) throw ptx::emu::Error(fmt::format("no kernel named '{}' with a body in the module", a.entry));
  std::vector<uint32_t> param_sizes;
  for (const auto& it : m.slice(fn->params.params)) {
    const auto info = ptx::ir::decl_info(m, m.decls[it.node]);
    const std::string_view t = info.type;
    param_sizes.push_back(t.size() > 2 ? static_cast<uint32_t>(std::atoi(std::string(t.substr(2)).c_str()) / 8 * info.vector) : 8);
  }
  auto traced = std::make_shared<ptx::Traced>();
  traced->name = a.entry;
  traced->ptx = text;
  const auto words = ptx::ir::target_words(m);
  traced->target = words.empty() ? "" : std::string(words[0]);
  if (const auto version = ptx::ir::ptx_version(m))  // 8 bits each, as the validator reads it
    traced->ptx_version = {static_cast<uint8_t>(version->major), static_cast<uint8_t>(version->minor)};
  traced->grid = cfg.grid;
  traced->block = cfg.block;
  traced->cluster = cfg.cluster;
  traced->dynamic_smem_bytes = cfg.dynamic_smem;
  std::map<std::string, ptx::DevicePtr> buffers;
  std::map<std::string, size_t> sizes;
  for (const std::string& b : a.bufs) {
    const auto [name, spec] = name_value(b, "--buf");
    if (buffers.count(name)) throw Usage(fmt::format("--buf {}: defined twice", name));
    const auto bytes = buffer_bytes(name, spec, number<uint64_t>(a.max_memory, "--max-memory"));
    sizes[name] = bytes.size();
    buffers[name] = dev.alloc(bytes.size(), name);
    if (!bytes.empty()) dev.copy_to_device(buffers[name], bytes.data(), bytes.size());
  }
  std::vector<ptx::emu::Arg> scalars;
  scalars.reserve(a.args.size());
  std::vector<ptx::LaunchArg> args;
  for (size_t i = 0; i < a.args.size(); ++i) {
    const std::string& v = a.args[i];
    ptx::ParamInfo p;
    p.name = fmt::format("parameter {}", i);
    if (auto it = buffers.find(v); it != buffers.end()) {
      p.is_tensor = true;
      args.push_back(ptx::launch_arg(it->second));
    } else if (v.find(':') != std::string::npos) {
      scalars.push_back(scalar_arg(v));
      p.dtype = dtype_of(v);
      args.push_back(ptx::LaunchArg{false, p.dtype, static_cast<uint8_t>(scalars.back().bytes.size()), scalars.back().bytes.data(), nullptr, false});
    } else {
      throw Usage(fmt::format("--arg {}: neither a --buf name nor TYPE:NUMBER", v));
    }
    if (i < param_sizes.size() && args.back().size != param_sizes[i])
      throw ptx::emu::Error(fmt::format("argument {} has {} bytes; the parameter has {}", i, args.back().size, param_sizes[i]));
    traced->params.push_back(p);
  }
  if (args.size() != param_sizes.size())
    throw ptx::emu::Error(fmt::format("{} arguments for {} parameters", args.size(), param_sizes.size()));
  std::vector<std::pair<std::string, std::string>> dumps;
  for (const std::string& d : a.dumps) {
    auto nv = name_value(d, "--dump");
    if (!buffers.count(nv.first)) throw Usage(fmt::format("--dump {}: no --buf named '{}'", d, nv.first));
    dumps.push_back(std::move(nv));
  }
  ptx::bind(dev, traced).launch(args);
  dev.synchronize();
  for (const auto& [name, path] : dumps) {
    std::vector<uint8_t> bytes(sizes[name]);
    dev.copy_to_host(bytes.data(), buffers[name], bytes.size());
    write_dump(name, path, bytes.data(), bytes.size());
  }
  std::cerr << fmt::format("ran {} on GPU 0 ({})\n", a.entry, dev.name());
}

// The emulator's options from --max-steps, --timeout, --max-memory and the progress flags.
ptx::emu::Options emulator_options(const RunArgs& a) {
  ptx::emu::Options o;
  o.max_steps = number<uint64_t>(a.max_steps, "--max-steps");
  if (o.max_steps == 0) throw Usage("--max-steps 0: the limit must be positive");
  o.timeout_seconds = number<double>(a.timeout, "--timeout");
  if (!(o.timeout_seconds >= 0) || !std::isfinite(o.timeout_seconds))
    throw Usage(fmt::format("--timeout {}: seconds, 0 or more (0: no limit)", a.timeout));
  o.max_launch_memory = number<uint64_t>(a.max_memory, "--max-memory");
  const bool show = !a.quiet && (a.progress || isatty(STDERR_FILENO));
  if (show)
    o.on_progress = [in_place = !a.progress](const ptx::emu::Progress& p) {
      std::cerr << fmt::format("ptxpp run: running: {} of {} CTAs done, {} warp instructions, {:.0f} s{}", p.ctas_done, p.ctas,
                               p.warp_instructions, p.seconds, in_place ? "\r" : "\n")
                << std::flush;
    };
  return o;
}

// The option a refused launch configuration came from.
const char* option_of(ptx::emu::ConfigError::Field f) {
  using F = ptx::emu::ConfigError::Field;
  switch (f) {
    case F::Grid: return "--grid";
    case F::Block: return "--block";
    case F::Cluster: return "--cluster";
    case F::SharedMemory: return "--smem";
    case F::Arguments: return "--arg";
  }
  return "--arg";
}

void run_emulator(const RunArgs& a, const ptx::ir::Module& m, const ptx::emu::LaunchConfig& cfg) {
  const ptx::emu::Options options = emulator_options(a);
  ptx::emu::Emulator emu(options);
  std::map<std::string, uint64_t> buffers;
  for (const std::string& b : a.bufs) {
    const auto [name, spec] = name_value(b, "--buf");
    if (buffers.count(name)) throw Usage(fmt::format("--buf {}: defined twice", name));
    const auto bytes = buffer_bytes(name, spec, options.max_launch_memory);
    const uint64_t addr = emu.memory().alloc(bytes.size(), name);
    if (!bytes.empty()) emu.memory().write(addr, bytes.data(), bytes.size());
    buffers[name] = addr;
  }
  std::vector<ptx::emu::Arg> args;
  for (const std::string& v : a.args) {
    if (auto it = buffers.find(v); it != buffers.end()) args.push_back(ptx::emu::Arg::pointer(it->second));
    else if (v.find(':') != std::string::npos) args.push_back(scalar_arg(v));
    else throw Usage(fmt::format("--arg {}: neither a --buf name nor TYPE:NUMBER", v));
  }
  std::vector<std::pair<std::string, std::string>> dumps;
  for (const std::string& d : a.dumps) {
    auto nv = name_value(d, "--dump");
    if (!buffers.count(nv.first)) throw Usage(fmt::format("--dump {}: no --buf named '{}'", d, nv.first));
    dumps.push_back(std::move(nv));
  }
  emu.launch(m, a.entry, cfg, args);
  if (options.on_progress && !a.progress) std::cerr << "\33[2K" << std::flush;  // clear the progress line
  for (const auto& [name, path] : dumps) {
    const auto* alloc = emu.memory().owner(buffers[name]);
    write_dump(name, path, alloc->bytes.data(), alloc->bytes.size());
  }
  if (!a.quiet)
    std::cerr << fmt::format("ran {} on the CPU emulator: grid {},{},{} block {},{},{}: {} warp instructions, {} thread instructions\n", a.entry,
                             cfg.grid.x, cfg.grid.y, cfg.grid.z, cfg.block.x, cfg.block.y, cfg.block.z, emu.stats().warp_instructions,
                             emu.stats().thread_instructions);
}

void run(const RunArgs& a) {
  try {
    if (a.device != "cpu" && a.device != "gpu") throw Usage(fmt::format("--device {}: expected cpu or gpu", a.device));
    ptx::emu::LaunchConfig cfg;
    cfg.grid = dims(a.grid, "--grid");
    cfg.block = dims(a.block, "--block");
    cfg.cluster = dims(a.cluster, "--cluster");
    cfg.dynamic_smem = number<uint32_t>(a.smem, "--smem");
    auto text = read_input(a.file);
    if (!text) return set_exit_code(2);
    auto parsed = ptx::text::parse(*text, {a.file == "-" ? "<stdin>" : a.file});
    if (!parsed) {
      std::cerr << parsed.error().format() << "\n";
      return set_exit_code(1);
    }
    if (a.device == "gpu") return run_gpu(a, *text, parsed.module(), cfg);
    run_emulator(a, parsed.module(), cfg);
  } catch (const Usage& e) {
    throw UsageError(e.what());  // ptxpp's usage error: "ptxpp: error: run: ...", exit status 2
  } catch (const ptx::emu::ConfigError& e) {
    throw UsageError(fmt::format("{}: {}", option_of(e.field), e.what()));  // a launch no GPU takes: the option named
  } catch (const ptx::emu::Error& e) {
    std::cerr << "ptxpp run: " << e.what() << "\n";
    set_exit_code(1);
  } catch (const ptx::runtime::Error& e) {
    std::cerr << "ptxpp run: " << e.what() << "\n";
    set_exit_code(1);
  }
}

void cache_command(const std::string& what) {
  try {
    const ptx::runtime::CubinCache cache;
    if (what == "dir") {
      write_output("-", cache.dir() + "\n");
      if (const std::string why = cache.problem(); !why.empty()) throw ptx::runtime::Error(why);
    } else if (what == "stats") {
      const auto s = cache.stats();
      write_output("-", fmt::format("{}: {} entries, {} bytes (limit {} bytes)\n", cache.dir(), s.entries, s.bytes, s.max_bytes));
    } else {
      write_output("-", fmt::format("removed {} entries from {}\n", cache.clear(), cache.dir()));
    }
  } catch (const ptx::runtime::Error& e) {
    print_error(fmt::format("cache: {}", e.what()));
    set_exit_code(kFailure);
  }
}

}  // namespace

void register_run_commands(CLI::App& app) {
  auto* cmd = app.add_subcommand("run", "Run a kernel of a PTX file on the CPU emulator (or the GPU)");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("FILE", a->file, "PTX file, or - for standard input")->required();
  cmd->add_option("--entry", a->entry, "The kernel (.entry) to run")->required();
  cmd->add_option("--grid", a->grid, "Grid dimensions X[,Y[,Z]] (default 1)");
  cmd->add_option("--block", a->block, "Block dimensions X[,Y[,Z]] (default 1)");
  cmd->add_option("--cluster", a->cluster, "Cluster dimensions X[,Y[,Z]] (default 1)");
  cmd->add_option("--smem", a->smem, "Dynamic shared memory in bytes (with the static, at most what the module's target takes)");
  cmd->add_option("--buf", a->bufs, "NAME=SPEC: a device buffer; SPEC is file:PATH, zeros:BYTES or hex:HEXBYTES");
  cmd->add_option("--arg", a->args, "A kernel argument, in order: a --buf NAME, or TYPE:NUMBER (u32:5, f32:1.5)");
  cmd->add_option("--dump", a->dumps, "NAME=PATH: write the buffer's bytes to PATH after the run");
  cmd->add_option("--device", a->device, "cpu (the emulator) or gpu");
  cmd->add_option("--max-steps", a->max_steps, "Emulator: warp instructions per CTA (cluster) before the kernel is reported as hung")
      ->capture_default_str();
  cmd->add_option("--timeout", a->timeout, "Emulator: seconds before a still-running kernel is reported as hung (0: no limit)")
      ->capture_default_str();
  cmd->add_option("--max-memory", a->max_memory, "Emulator: bytes of host memory for the launch's state, and for each --buf")
      ->capture_default_str();
  cmd->add_flag("--progress", a->progress, "Emulator: a progress line each second on standard error (default: when it is a terminal)");
  cmd->add_flag("-q,--quiet", a->quiet, "No progress and no summary line");
  cmd->callback([a] { run(*a); });

  auto* cache = app.add_subcommand("cache", "The on-disk cache of compiled kernels: stats, clear, dir");
  auto what = std::make_shared<std::string>();
  cache->add_option("WHAT", *what, "stats, clear or dir")->required()->check(CLI::IsMember({"stats", "clear", "dir"}));
  cache->callback([what] { cache_command(*what); });
}

}  // namespace ptxpp_cli
