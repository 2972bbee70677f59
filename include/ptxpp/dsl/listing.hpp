// Listings: a PTX module written statement by statement, in the order of the
// text, with the names the text uses. What the transpiler generates, and what a
// user edits when they take over someone else's kernel:
//
//   ptx::Listing m({.target = "sm_90a"});
//   m.text(".version 8.8\n.target sm_90a\n.address_size 64\n\n"
//          ".visible .entry add1(\n\t.param .u64 p\n)\n");   // directives, variables, headers: as written
//   m.body([] {                                               // the function body that follows
//     namespace lst = ptx::listing;
//     ptx::RegArray rd = lst::regs(ptx::b64, "%rd", 3);       // .reg .b64 %rd<3>;
//     ptx::inst::ld.param.u64(rd[1], ptx::addr("p"));
//     ...
//   });
//   std::string text = m.ptx();                               // canonical PTX
//
// Instructions in a body are ptx::inst calls (one call, one instruction), checked
// against the table unless `validate` is off. Declarations, directives and labels
// are written where they stand, with exact names; comments and blank lines are kept.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx {

struct ListingOptions {
  std::string target = "sm_90a";  // what instructions are checked against
  bool validate = true;           // check each instruction against the ISA table and the target
};

class Listing {
 public:
  explicit Listing(ListingOptions o = {});
  // Module-level PTX as written (directives, variables, function headers, comments).
  Listing& text(std::string ptx_text);
  // A function body `{ ... }`, traced from `body`; it follows the text before it.
  Listing& body(std::function<void()> body);
  // The module: the pieces in order, parsed and printed in canonical form.
  std::string ptx() const;

 private:
  struct Piece {
    std::string text;
    std::function<void()> body;
  };
  ListingOptions options_;
  std::vector<Piece> pieces_;
};

namespace listing {

// `.reg .T name<count>;` here; elements name0 .. name{count-1}.
RegArray regs(DType t, std::string_view name, uint32_t count, ptx::SourceLocation where = ptx::SourceLocation::current());
// `.reg .T name;` here.
Reg reg(DType t, std::string_view name, ptx::SourceLocation where = ptx::SourceLocation::current());
// A register declared by a `stmt` (no declaration is written).
Reg reg_ref(DType t, std::string_view name, ptx::SourceLocation where = ptx::SourceLocation::current());
// A label with exactly this name (`$L__BB0_2`); place it with ptx::place.
Label label(std::string_view name, ptx::SourceLocation where = ptx::SourceLocation::current());
// A declaration or directive as written (`.shared .align 4 .b8 s[64];`, `.pragma "nounroll";`).
void stmt(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());
// An instruction as written, not checked: for the ones no ptx::inst chain spells.
void instruction(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());
// An operand as written (`[%rd1+-4]`, `0x1F`, `(%r1, %r2)`).
Operand operand(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());
// A nested `{ ... }` block.
void block(const std::function<void()>& body, ptx::SourceLocation where = ptx::SourceLocation::current());
// Loops whose back edge is their last instruction, with the label they start at:
//   repeat_while(top, p, body):  `top: body  @p bra top;`   (do { body } while (p))
//   repeat_until(top, p, body):  `top: body  @!p bra top;`  (spin until p: mbarrier try_wait loops)
// `uni` writes `bra.uni`.
void repeat_while(const Label& top, const Reg& p, const std::function<void()>& body, bool uni = false,
                  ptx::SourceLocation where = ptx::SourceLocation::current());
void repeat_until(const Label& top, const Reg& p, const std::function<void()>& body, bool uni = false,
                  ptx::SourceLocation where = ptx::SourceLocation::current());
// A spin loop that leaves forward (mbarrier try_wait in inline asm):
//   `top: body  @p bra done;  bra.uni top;  done:`
void wait_loop(const Label& top, const Label& done, const Reg& p, const std::function<void()>& body,
               ptx::SourceLocation where = ptx::SourceLocation::current());
// Comments and blank lines before the next statement (or the closing brace).
void comment(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());
void comment_same_line(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());
void blank_line(ptx::SourceLocation where = ptx::SourceLocation::current());
// A comment at the end of the line of the statement just written.
void trail(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace listing
}  // namespace ptx
