// ptxpp check | spec
#include <fmt/core.h>

#include <map>
#include <set>
#include <sstream>

#include "commands.hpp"
#include "output.hpp"
#include "ptxpp/emu/coverage.hpp"
#include "ptxpp/spec/decoded.hpp"
#include "ptxpp/spec/isa.hpp"
#include "ptxpp/spec/validator.hpp"
#include "ptxpp/text/diagnostic.hpp"
#include "ptxpp/text/parser.hpp"
#include "suggest.hpp"
#include "usage.hpp"

namespace ptxpp_cli {

namespace {

struct CheckArgs {
  std::string file;
  std::string target;
  std::string version;
  std::string old_version;  // --version, the old spelling of --ptx-version
  std::string out;          // the diagnostics' file; "" for standard error
  bool pedantic = false;
  bool forms = false;       // also print the form each instruction matched
};

// The options as CheckOptions; a malformed value is a usage error.
ptx::spec::CheckOptions check_options(const CheckArgs& a) {
  if (!a.old_version.empty())
    throw UsageError("--version " + a.old_version + ": the PTX ISA version to check for is --ptx-version " +
                     a.old_version + " (ptxpp --version prints ptxpp's version)");
  ptx::spec::CheckOptions opts;
  opts.pedantic = a.pedantic;
  if (!a.target.empty()) {
    opts.target = ptx::Target::parse(a.target);
    if (!opts.target || ptx::spec::min_ptx_for(*opts.target).major == 0)
      throw UsageError("--target " + a.target + ": not a known target such as sm_90a");
  }
  if (!a.version.empty()) {
    unsigned major = 0, minor = 0;
    char dot = 0;
    std::istringstream in(a.version);
    if (!(in >> major >> dot >> minor) || dot != '.' || !in.eof() || major > 255 || minor > 255)
      throw UsageError("--ptx-version " + a.version + ": not a PTX ISA version such as 8.7");
    opts.version = ptx::PtxVersion{static_cast<uint8_t>(major), static_cast<uint8_t>(minor)};
  }
  return opts;
}

// `check --forms`: each instruction's form of the table, where the table writes it, and the value
// each modifier group takes ("file:3:2: add.f32 -> add{.rnd}{.ftz}{.sat}.f32 d, a, b (spec/isa/float.isa:12) .rnd=.rn").
std::string forms_report(const ptx::ir::Module& m, const ptx::spec::CheckedModule& checked, const ptx::text::LineIndex& lines,
                         const std::string& name) {
  std::string out;
  for (const ptx::spec::DecodedInstruction& d : checked.instructions) {
    const ptx::ir::Instruction& in = m.instructions[d.instruction];
    const ptx::Diagnostic at = lines.locate(name, in.loc, m.mnemonic(in));
    std::string_view where = d.fit->form->where;  // the build's path: from spec/isa/ on
    if (const size_t at_spec = where.rfind("spec/isa/"); at_spec != std::string_view::npos) where.remove_prefix(at_spec);
    std::string line = fmt::format("{}:{}:{}: {} -> {} ({})", name, at.line, at.column, at.message, d.fit->form->syntax, where);
    for (const ptx::spec::Chosen& c : d.fit->choices) line += fmt::format(" {}={}", ptx::spec::group(c.group).name, c.value->text);
    if (!d.requirements_met) line += " [requirements not met]";
    out += line + "\n";
  }
  return out;
}

// What `check` reports on `text`: the parse error, or every diagnostic and the count of errors
// (with `forms`, the form of each instruction to standard output first).
std::string check_report(const std::string& text, const std::string& name, const ptx::spec::CheckOptions& opts, bool forms) {
  ptx::text::ParseOptions popts;
  popts.file_name = name;
  const auto parsed = ptx::text::parse(text, popts);
  if (!parsed) {
    set_exit_code(kFailure);
    return parsed.error().format() + "\n";
  }
  const ptx::text::LineIndex lines(text);  // once: a file may have many diagnostics
  size_t errors = 0;
  std::string report;
  const ptx::spec::CheckedModule checked = ptx::spec::check_and_decode(parsed.module(), opts);
  if (forms) write_output("-", forms_report(parsed.module(), checked, lines, name));
  for (const auto& d : checked.diagnostics) {
    ptx::Diagnostic shown = lines.locate(name, d.offset, d.message);
    shown.severity = d.severity;
    if (d.severity == ptx::Severity::Error) ++errors;
    report += shown.format() + "\n";
  }
  if (errors) {
    report += fmt::format("{} {} in {}\n", errors, errors == 1 ? "error" : "errors", name);
    set_exit_code(kFailure);
  }
  return report;
}

void check_file(const CheckArgs& a) {
  const ptx::spec::CheckOptions opts = check_options(a);
  const auto text = read_input(a.file);
  if (!text) return set_exit_code(kFailure);
  const std::string report = check_report(*text, a.file == "-" ? "<stdin>" : a.file, opts, a.forms);
  if (!a.out.empty()) {
    write_output(a.out, report);
  } else if (std::fwrite(report.data(), 1, report.size(), stderr) != report.size() || std::fflush(stderr) != 0) {
    set_exit_code(kFailure);  // the diagnostics are lost, and there is nowhere left to say so
  }
}

// One form's table entry in readable form.
void print_form(const ptx::spec::Form& f, std::ostream& out) {
  using namespace ptx::spec;
  out << "  " << f.syntax << "\n";
  out << "    requires: " << describe(f.req) << "\n";
  std::set<uint32_t> shown;
  for (const Slot& s : slots(f))
    for (const SlotItem& it : items(s))
      if (it.is_group && shown.insert(it.group).second) {
        const Group& g = group(it.group);
        out << "    " << g.name << " = {";
        bool first = true;
        for (const Value& v : values(g)) {
          out << (first ? " " : ", ") << v.text;
          if (v.req.set_count || v.req.ptx.major > 1) out << " [" << describe(v.req) << "]";
          first = false;
        }
        out << " }\n";
      }
  for (const Operand& o : operands(f)) {
    out << "    " << o.name << (o.optional ? " (optional)" : "") << ":";
    auto show = [&out](std::span<const Kind> ks) {
      bool first = true;
      for (const Kind& k : ks) {
        static constexpr const char* kTags[] = {"reg",  "imm",  "pred",   "vec",        "addr",    "label", "symbol",
                                                "func", "args", "texref", "samplerref", "surfref", "sink"};
        out << (first ? " " : " | ") << kTags[static_cast<int>(k.tag)];
        std::string args;
        if (k.count_literal) args += std::to_string(k.count_literal);
        if (k.count.present()) args += std::string(k.count.text);
        if (k.count_letter) args += std::string(":") + k.count_letter;
        if (k.count_op) args += k.count_op + std::to_string(k.count_factor);
        if (k.type.present())
          args += (args.empty() ? "" : ", ") + std::string(k.type.text) + (k.type.doubled ? "[2]" : "");
        if (k.space.present()) args += std::string(k.space.text);
        if (k.wide) args += ", wide";
        if (k.imm) args += ", imm";
        if (k.negate) args += "!";
        if (!args.empty()) out << "(" << args << ")";
        first = false;
      }
    };
    show(kinds(o));
    if (!o.pair.empty()) {
      out << "   " << o.pair << (o.pair_optional ? " (optional)" : "") << ":";
      show(pair_kinds(o));
    }
    out << "\n";
  }
}

void spec_coverage(std::ostream& out) {
  using namespace ptx::spec;
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
    out << (ok ? "  covered  " : "  MISSING  ") << fmt::format("{:<12} {:<24} {}", c.section, c.opcode, c.title)
        << "\n";
  }
  out << covered << " of " << chapter().size() << " instruction sections covered; " << forms().size() << " forms in "
      << blocks().size() << " blocks; " << special_registers().size() << " special registers\n";
  set_exit_code(covered == chapter().size() ? kSuccess : kFailure);
}

std::string_view first_line(std::string_view s) { return s.substr(0, s.find('\n')); }

// Every form of the table and whether the emulator runs it (its decoder takes the form's sample
// instructions): "runs", "partly" (some samples; the first refusal shown) or "no".
void emulator_coverage(std::ostream& out) {
  const auto coverage = ptx::emu::emulator_coverage();
  const auto forms = ptx::spec::forms();
  size_t runs = 0, partly = 0;
  for (const ptx::emu::FormCoverage& c : coverage) {
    runs += c.runs();
    partly += c.partly();
    const char* status = c.runs() ? "runs  " : c.partly() ? "partly" : "no    ";
    out << "  " << status << "  " << forms[c.form].syntax;
    if (!c.runs()) out << fmt::format("  ({} of {} samples; {})", c.decoded, c.samples, first_line(c.reason));
    out << "\n";
  }
  out << fmt::format("the emulator runs {} of {} forms, {} more in part, {} not at all\n", runs, coverage.size(), partly,
                     coverage.size() - runs - partly);
}

// The table's entry for `opcode`: each block's heading, its notes one per line, its forms.
bool spec_entry(const std::string& opcode, std::ostream& out) {
  using namespace ptx::spec;
  const auto fs = forms_for(opcode);
  if (fs.empty()) {
    std::vector<std::string> opcodes;
    for (const Block& b : blocks()) opcodes.emplace_back(b.opcode);
    const std::string hint = did_you_mean(opcode, opcodes);
    print_error("spec: no instruction '" + opcode + "' in the table" +
                (hint.empty() ? " (see 'ptxpp spec --coverage')" : hint));
    set_exit_code(kFailure);
    return false;
  }
  uint32_t last_block = ~0u;
  for (const Form& f : fs) {
    if (f.block != last_block) {
      const Block& b = blocks()[f.block];
      out << b.opcode << "  (PTX ISA " << b.sections << ")" << (b.deprecated ? "  deprecated" : "") << "\n";
      std::string_view notes = b.notes;  // one per line
      while (!notes.empty()) {
        const size_t nl = notes.find('\n');
        out << "  note: " << notes.substr(0, nl) << "\n";
        notes = nl == std::string_view::npos ? std::string_view{} : notes.substr(nl + 1);
      }
      last_block = f.block;
    }
    print_form(f, out);
  }
  return true;
}

}  // namespace

void register_spec_commands(CLI::App& app) {
  {
    auto* cmd = app.add_subcommand("check", "Validate FILE against the PTX ISA table; all errors, with locations");
    auto a = std::make_shared<CheckArgs>();
    cmd->add_option("FILE", a->file, "PTX file, or - for standard input")->required();
    cmd->add_option("--target", a->target,
                    "Check for this target instead of the module's .target (e.g. sm_90a); a PTX ISA version too old "
                    "for it is an error");
    cmd->add_option("--ptx-version", a->version,
                    "Check for this PTX ISA version instead of the module's .version (e.g. 8.7); a target or "
                    "instruction that needs a later one is an error");
    cmd->add_option("--version", a->old_version)->group("");  // the old --ptx-version: a usage error that says so
    cmd->add_flag("--pedantic", a->pedantic, "Also warn about modifiers out of the PTX ISA manual's order");
    cmd->add_flag("--forms", a->forms,
                  "Print each instruction's form of the ISA table, where the table defines it, and the value each "
                  "modifier group takes (standard output)");
    cmd->add_option("-o,--output", a->out,
                    "Write the diagnostics to this file (- for standard output) "
                    "instead of standard error");
    cmd->callback([a] { check_file(*a); });
  }
  {
    auto* cmd = app.add_subcommand("spec", "Show the ISA table: one instruction, or the chapter's coverage");
    auto opcode = std::make_shared<std::string>();
    auto coverage = std::make_shared<bool>(false);
    auto emulator = std::make_shared<bool>(false);
    auto out = std::make_shared<std::string>();
    cmd->add_option("OPCODE", *opcode, "Instruction opcode, e.g. ld");
    cmd->add_flag("--coverage", *coverage, "List the instruction-set chapter against the table");
    cmd->add_flag("--emulator", *emulator, "With --coverage: list every form of the table and whether the emulator runs it");
    cmd->add_option("-o,--output", *out, "Output file (default: standard output)");
    cmd->callback([opcode, coverage, emulator, out] {
      // --emulator first: alone it would be told that OPCODE or --coverage is required
      if (*emulator && !*coverage) throw UsageError("--emulator goes with --coverage");
      if (!*coverage && opcode->empty()) throw UsageError("OPCODE or --coverage is required");
      std::ostringstream text;
      if (*emulator)
        emulator_coverage(text);
      else if (*coverage)
        spec_coverage(text);
      else if (!spec_entry(*opcode, text))
        return;
      write_output(*out, text.str());
    });
  }
}

}  // namespace ptxpp_cli
