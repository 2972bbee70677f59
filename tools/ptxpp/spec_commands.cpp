// ptxpp check | spec
#include <fmt/core.h>

#include <iostream>
#include <map>
#include <sstream>
#include <set>

#include "commands.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/diagnostic.hpp"
#include "ptxpp/text/parser.hpp"

namespace ptxpp_cli {

namespace {

struct CheckArgs {
  std::string file;
  std::string target;
  std::string version;
  bool pedantic = false;
};

void check_file(const CheckArgs& a) {
  ptx::spec::CheckOptions opts;
  opts.pedantic = a.pedantic;
  if (!a.target.empty()) {
    opts.target = ptx::spec::Target::parse(a.target);
    if (!opts.target) {
      std::cerr << "ptxpp check: --target " << a.target << ": not a target such as sm_90a\n";
      return set_exit_code(2);
    }
  }
  if (!a.version.empty()) {
    unsigned major = 0, minor = 0;
    char dot = 0;
    std::istringstream in(a.version);
    if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major > 255 || minor > 255) {
      std::cerr << "ptxpp check: --version " << a.version << ": not a PTX ISA version such as 8.7\n";
      return set_exit_code(2);
    }
    opts.version = ptx::spec::PtxIsaVersion{static_cast<uint8_t>(major), static_cast<uint8_t>(minor)};
  }
  const auto input = parse_input(a.file);
  if (!input) return set_exit_code(1);
  const auto diags = ptx::spec::check(input->module, opts);
  const ptx::text::LineIndex lines(input->text);  // once: a file may have many diagnostics
  size_t errors = 0;
  for (const auto& d : diags) {
    auto loc = lines.locate(input->name, d.offset, d.message);
    std::string shown = loc.format();
    if (d.severity == ptx::spec::Severity::Warning) {
      const size_t at = shown.find(": error: ");
      if (at != std::string::npos) shown.replace(at, 9, ": warning: ");
    } else {
      ++errors;
    }
    std::cerr << shown << "\n";
  }
  if (errors) {
    std::cerr << errors << (errors == 1 ? " error" : " errors") << " in " << input->name << "\n";
    set_exit_code(1);
  }
}

// One form's table entry in readable form.
void print_form(const ptx::spec::Form& f) {
  using namespace ptx::spec;
  std::cout << "  " << f.syntax << "\n";
  std::cout << "    requires: " << describe(f.req) << "\n";
  std::set<uint32_t> shown;
  for (const Slot& s : slots(f))
    for (const SlotItem& it : items(s))
      if (it.is_group && shown.insert(it.group).second) {
        const Group& g = group(it.group);
        std::cout << "    " << g.name << " = {";
        bool first = true;
        for (const Value& v : values(g)) {
          std::cout << (first ? " " : ", ") << v.text;
          if (v.req.set_count || v.req.ptx_major > 1) std::cout << " [" << describe(v.req) << "]";
          first = false;
        }
        std::cout << " }\n";
      }
  for (const Operand& o : operands(f)) {
    std::cout << "    " << o.name << (o.optional ? " (optional)" : "") << ":";
    auto show = [](std::span<const Kind> ks) {
      bool first = true;
      for (const Kind& k : ks) {
        static constexpr const char* kTags[] = {"reg", "imm", "pred", "vec", "addr", "label", "symbol",
                                                "func", "args", "texref", "samplerref", "surfref", "sink"};
        std::cout << (first ? " " : " | ") << kTags[static_cast<int>(k.tag)];
        std::string args;
        if (k.count_literal) args += std::to_string(k.count_literal);
        if (k.count.present()) args += std::string(k.count.text);
        if (k.count_letter) args += std::string(":") + k.count_letter;
        if (k.count_op) args += k.count_op + std::to_string(k.count_factor);
        if (k.type.present()) args += (args.empty() ? "" : ", ") + std::string(k.type.text) + (k.type.doubled ? "[2]" : "");
        if (k.space.present()) args += std::string(k.space.text);
        if (k.wide) args += ", wide";
        if (k.imm) args += ", imm";
        if (k.negate) args += "!";
        if (!args.empty()) std::cout << "(" << args << ")";
        first = false;
      }
    };
    show(kinds(o));
    if (!o.pair.empty()) {
      std::cout << "   " << o.pair << (o.pair_optional ? " (optional)" : "") << ":";
      show(pair_kinds(o));
    }
    std::cout << "\n";
  }
}

void spec_command(const std::string& opcode, bool coverage) {
  using namespace ptx::spec;
  if (coverage) {
    std::map<std::string, std::set<std::string_view>> cited;  // section -> opcodes of blocks citing it
    for (const Block& b : blocks()) {
      std::string_view secs = b.sections;
      while (!secs.empty()) {
        const size_t sp = secs.find(' ');
        cited[std::string(secs.substr(0, sp))].insert(b.opcode);
        secs = sp == std::string_view::npos ? std::string_view{} : secs.substr(sp + 1);
      }
    }
    size_t covered = 0;
    for (const Chapter& c : chapter()) {
      const bool ok = cited.count(std::string(c.section)) != 0;
      covered += ok;
      std::cout << (ok ? "  covered  " : "  MISSING  ") << fmt::format("{:<12} {:<24} {}", c.section, c.opcode, c.title)
                << "\n";
    }
    std::cout << covered << " of " << chapter().size() << " instruction sections covered; " << forms().size()
              << " forms in " << blocks().size() << " blocks; " << special_registers().size()
              << " special registers\n";
    set_exit_code(covered == chapter().size() ? 0 : 1);
    return;
  }
  const auto fs = forms_for(opcode);
  if (fs.empty()) {
    std::cerr << "ptxpp spec: no instruction '" << opcode << "' in the table (try: ptxpp spec --coverage)\n";
    return set_exit_code(1);
  }
  uint32_t last_block = ~0u;
  for (const Form& f : fs) {
    if (f.block != last_block) {
      const Block& b = blocks()[f.block];
      std::cout << b.opcode << "  (PTX ISA " << b.sections << ")" << (b.deprecated ? "  deprecated" : "") << "\n";
      if (!b.notes.empty()) std::cout << "  note: " << b.notes << "\n";
      last_block = f.block;
    }
    print_form(f);
  }
}

}  // namespace

void register_spec_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("check", "Validate FILE against the PTX ISA table; all errors, with locations");
    auto a = std::make_shared<CheckArgs>();
    cmd->add_option("FILE", a->file, "PTX file, or - for standard input")->required();
    cmd->add_option("--target", a->target, "Check for this target instead of the module's .target (e.g. sm_90a)");
    cmd->add_option("--version", a->version, "Check for this PTX ISA version instead of the module's (e.g. 8.7)");
    cmd->add_flag("--pedantic", a->pedantic, "Also warn about modifiers out of the PTX ISA manual's order");
    cmd->callback([a] { check_file(*a); });
  }
  {
    auto* cmd = app.add_subcommand("spec", "Show the ISA table: one instruction, or the chapter's coverage");
    auto opcode = std::make_shared<std::string>();
    auto coverage = std::make_shared<bool>(false);
    cmd->add_option("OPCODE", *opcode, "Instruction opcode, e.g. ld");
    cmd->add_flag("--coverage", *coverage, "List the instruction-set chapter against the table");
    cmd->callback([opcode, coverage] {
      if (!*coverage && opcode->empty()) throw CLI::RequiredError("OPCODE or --coverage");
      spec_command(*opcode, *coverage);
    });
  }
}

}  // namespace ptxpp_cli
