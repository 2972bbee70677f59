// Listings: a PTX module written statement by statement, in the order of the
// text, with the names the text uses. What the transpiler generates, and what a
// user edits when they take over someone else's kernel:
//
//   namespace lst = ptx::listing;
//   ptx::Listing m({.target = "sm_90a", .version = "8.8"});  // .version, .target, .address_size 64
//   m.entry("add1", {lst::param(DType::u64, "p")}, {.linkage = lst::Linkage::visible}, [] {
//     ptx::RegArray rd = lst::regs(ptx::b64, "%rd", 3);       // .reg .b64 %rd<3>;
//     ptx::inst::ld.param.u64(rd[1], ptx::addr("p"));
//     ...
//   });
//   std::string text = m.ptx();                               // canonical PTX
//
// Instructions in a body are ptx::inst calls (one call, one instruction), checked
// against the table unless `validate` is off. Declarations, directives and labels
// are written where they stand, with exact names; comments and blank lines are kept.
// Function headers and module variables are typed (listing_decls.hpp); what they do
// not express is written as text (stmt, or text then body).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/listing_decls.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"
#include "ptxpp/dsl/source_location.hpp"

namespace ptx {

struct ListingOptions {
  std::string target = "sm_90a";  // what instructions are checked against (and `.target` with a version)
  bool validate = true;           // check each instruction against the ISA table and the target
  // `.version V`, `.target T`, `.address_size N`, written first (or where Listing::header is
  // called); empty: not written (text carries them).
  std::string version = {};
  uint32_t address_size = 64;
};

class Listing {
 public:
  using Body = std::function<void()>;
  using Params = std::vector<listing::Param>;
  explicit Listing(ListingOptions o = {});

  // ---- as written ----------------------------------------------------------------
  // Module-level PTX as written, joined to what is before and after it as is.
  Listing& text(std::string ptx_text);
  // A function body `{ ... }`, traced from `body`; it follows the text before it.
  Listing& body(Body body);
  // A module-level statement as written, on its own line (`.file 1 "k.cu"`).
  Listing& stmt(std::string ptx_text);

  // ---- functions: the header, then the body traced from `body` --------------------
  Listing& entry(std::string name, Params params, Body body, SourceLocation where = SourceLocation::current());
  Listing& entry(std::string name, Params params, listing::FunctionOptions o, Body body,
                 SourceLocation where = SourceLocation::current());
  // `ret`: the return values (empty: none is written).
  Listing& func(std::string name, Params ret, Params params, Body body,
                SourceLocation where = SourceLocation::current());
  Listing& func(std::string name, Params ret, Params params, listing::FunctionOptions o, Body body,
                SourceLocation where = SourceLocation::current());
  // A function declared without a body (`.extern .func (...) vprintf(...);`).
  Listing& func_decl(std::string name, Params ret, Params params, listing::FunctionOptions o = {},
                     SourceLocation where = SourceLocation::current());

  // ---- module variables ------------------------------------------------------------
  Listing& var(listing::Space space, DType type, std::string name, listing::VarOptions o = {},
               SourceLocation where = SourceLocation::current());
  Listing& global(DType type, std::string name, listing::VarOptions o = {}, SourceLocation where = SourceLocation::current());
  Listing& const_(DType type, std::string name, listing::VarOptions o = {}, SourceLocation where = SourceLocation::current());
  Listing& shared(DType type, std::string name, listing::VarOptions o = {}, SourceLocation where = SourceLocation::current());

  // Where the options' .version/.target/.address_size lines go (after the comments that open
  // a file); without it they open the module.
  Listing& header(SourceLocation where = SourceLocation::current());

  // ---- comments and blank lines between module-level statements ----------------------
  Listing& comment(std::string text);  // on its own line
  Listing& trail(std::string text);    // at the end of the line before
  Listing& blank_line();

  // The module: the pieces in order, parsed and printed in canonical form.
  std::string ptx() const;

 private:
  enum class Kind : uint8_t { Raw, Line, Trivia, Trail, Body, Header };
  struct Piece {
    Kind kind;
    std::string text;
    Body body;
  };
  std::string header_text() const;
  Listing& function(bool entry, std::string name, const Params* ret, const Params& params,
                    const listing::FunctionOptions& o, Body body, SourceLocation where);
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
