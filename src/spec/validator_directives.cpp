// Checker: directives (spec/isa/directives.isa): where they are written, operand counts, needs and conflicts.
#include "checker.hpp"

namespace ptx::spec::validation {

// needs/conflicts within a header, removed ones, version and target ---------------------------
void Checker::check_directives() {
  for (const Stmt& s : m_.root().stmts) {
    switch (s.kind) {
      case StmtKind::Directive: {
        const ir::Directive& d = m_.directives[s.index];
        use_directive(m_.text(d.name), kPlaceModule, d.loc, static_cast<int>(d.items.count));
        break;
      }
      case StmtKind::Decl: decl_directives(m_.decls[s.index], kPlaceModule); break;
      case StmtKind::Section: use_directive(".section", kPlaceModule, m_.sections[s.index].loc, -1); break;
      case StmtKind::Prototype: prototype_directives(m_.prototypes[s.index], kPlaceModule); break;
      case StmtKind::Function: function_directives(m_.functions[s.index]); break;
      default: break;
    }
  }
}

void Checker::prototype_directives(const Prototype& p, uint8_t place) {
  use_directive(".callprototype", place, p.loc, -1);
  for (uint32_t d : p.header)
    use_directive(m_.text(m_.directives[d].name), kPlaceProto, m_.directives[d].loc,
                  static_cast<int>(m_.directives[d].items.count));
}

void Checker::decl_directives(const Decl& d, uint8_t place) {
  bool after_ptr = false;  // `.ptr .global .align 16`: the state space and alignment pointed to
  for (const ir::Spec& w : m_.specs_of(d.specs)) {
    const std::string_view word = m_.text(w.word);
    if (after_ptr && word != ".align") continue;
    use_directive(word, place, d.loc, -1);
    after_ptr = after_ptr || word == ".ptr";
  }
}

template <class F>
void Checker::for_each_word(std::string_view words, F fn) {
  while (!words.empty()) {
    const size_t sp = words.find(' ');
    fn(words.substr(0, sp));
    words = sp == std::string_view::npos ? std::string_view{} : words.substr(sp + 1);
  }
}

void Checker::function_directives(const Function& f) {
  bool entry = false;
  for (const ir::Spec& w : m_.specs_of(f.specs)) {
    entry = entry || m_.text(w.word) == ".entry";
    use_directive(m_.text(w.word), kPlaceModule, f.loc, -1);
  }
  for (const ParamList* pl : {&f.ret, &f.params})
    for (const ListItem& it : m_.slice(pl->params))
      decl_directives(m_.decls[it.node], entry ? kPlaceEntryParam : kPlaceFuncParam);
  for (size_t i = 0; i < f.header.size(); ++i) {
    const ir::Directive& d = m_.directives[f.header[i]];
    const std::string_view name = m_.text(d.name);
    use_directive(name, entry ? kPlaceEntry : kPlaceFunc, d.loc, static_cast<int>(d.items.count));
    const DirectiveSpec* ds = find_directive(name);
    if (!ds) continue;
    // the position of another directive of this header, or -1
    auto position = [&](std::string_view other) {
      for (size_t j = 0; j < f.header.size(); ++j)
        if (m_.text(m_.directives[f.header[j]].name) == other) return static_cast<int>(j);
      return -1;
    };
    for_each_word(ds->needs, [&](std::string_view w) {
      if (position(w) < 0) error(d.loc, quoted(name) + " needs " + quoted(w) + " in the same function header");
    });
    for_each_word(ds->conflicts, [&](std::string_view w) {
      const int j = position(w);
      if (j >= 0 && static_cast<size_t>(j) < i) error(d.loc, quoted(name) + " and " + quoted(w) + " cannot both be given");
    });
  }
  if (f.has_body()) body_directives(m_.blocks[f.body]);
}

void Checker::body_directives(const ir::Block& b) {
  for (const Stmt& s : b.stmts) {
    switch (s.kind) {
      case StmtKind::Directive: {
        const ir::Directive& d = m_.directives[s.index];
        use_directive(m_.text(d.name), kPlaceBody, d.loc, static_cast<int>(d.items.count));
        break;
      }
      case StmtKind::Decl: decl_directives(m_.decls[s.index], kPlaceBody); break;
      case StmtKind::Block: body_directives(m_.blocks[s.index]); break;
      case StmtKind::Prototype: prototype_directives(m_.prototypes[s.index], kPlaceBody); break;
      default: break;
    }
  }
}

std::string Checker::place_text(uint8_t place) {
  switch (place) {
    case kPlaceModule: return "at module scope";
    case kPlaceBody: return "in a function body";
    case kPlaceEntry: return "in an .entry header";
    case kPlaceFunc: return "in a .func header";
    case kPlaceProto: return "after a .callprototype";
    case kPlaceEntryParam: return "on an .entry parameter";
    case kPlaceFuncParam: return "on a .func parameter";
    default: return "here";
  }
}

// One use of a directive or declaration word; operands < 0: not counted (words).
void Checker::use_directive(std::string_view name, uint8_t place, uint32_t loc, int operands) {
  const DirectiveSpec* d = find_directive(name);
  if (!d) return;  // types, vector widths and other words the table does not describe
  if (!d->places) return error(loc, quoted(name) + " cannot be declared (predefined only)");
  if (!(d->places & place)) return error(loc, quoted(name) + " is not allowed " + place_text(place));
  if (d->counted && operands >= 0 &&
      (operands < d->min_operands || (d->max_operands != 255 && operands > d->max_operands))) {
    const std::string range = d->min_operands == d->max_operands ? std::to_string(d->min_operands)
                              : d->max_operands == 255 ? "at least " + std::to_string(d->min_operands)
                              : std::to_string(d->min_operands) + " to " + std::to_string(d->max_operands);
    error(loc, quoted(name) + " takes " + range + " operands, found " + std::to_string(operands));
  }
  if (d->removed.major && version_.major && version_ >= d->removed)
    return error(loc, quoted(name) + " is not supported as of PTX ISA " + std::to_string(d->removed.major) + "." +
                          std::to_string(d->removed.minor));
  require(d->req, quoted(name), loc);
}

}  // namespace ptx::spec::validation
