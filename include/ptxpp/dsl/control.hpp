// Control flow. C++ control flow unrolls at trace time; these helpers emit
// run-time branches with labels. Each documents the exact sequence it emits.
#pragma once

#include <functional>
#include "ptxpp/dsl/source_location.hpp"

#include "ptxpp/dsl/label.hpp"
#include "ptxpp/dsl/operand.hpp"
#include "ptxpp/dsl/reg.hpp"

namespace ptx {

// bra.uni L  /  @p bra L
void bra(const Label& target, ptx::SourceLocation where = ptx::SourceLocation::current());
void bra_if(const Reg& p, const Label& target, ptx::SourceLocation where = ptx::SourceLocation::current());
void bra_unless(const Reg& p, const Label& target, ptx::SourceLocation where = ptx::SourceLocation::current());
// ret; / exit;
void ret(ptx::SourceLocation where = ptx::SourceLocation::current());
void exit(ptx::SourceLocation where = ptx::SourceLocation::current());

// if (p) then:           @!p bra END;  then  END:
void if_(const Reg& p, const std::function<void()>& then, ptx::SourceLocation where = ptx::SourceLocation::current());
// if (p) then else els:  @!p bra ELSE;  then  bra.uni END;  ELSE: els  END:
void if_(const Reg& p, const std::function<void()>& then, const std::function<void()>& els,
         ptx::SourceLocation where = ptx::SourceLocation::current());
// for (i = begin; i < end; i += step) body(i), for a fresh register i of the type of `end`
// (a register) or u32:
//   mov i, begin;  setp.ge p, i, end;  @p bra END;
//   LOOP: body  add i, i, step;  setp.lt p, i, end;  @p bra LOOP;  END:
void loop(const Operand& begin, const Operand& end, int64_t step, const std::function<void(const Reg& i)>& body,
          ptx::SourceLocation where = ptx::SourceLocation::current());
// while (cond()) body:  LOOP: p = cond()  @!p bra END;  body  bra.uni LOOP;  END:
void while_(const std::function<Reg()>& cond, const std::function<void()>& body,
            ptx::SourceLocation where = ptx::SourceLocation::current());

// A `{ ... }` block, traced from `body`, whose registers and labels are its own: every
// ptx::Reg, RegArray and Label made inside it is declared in it (its `.reg` declarations
// first), so a name given there (Reg(pred, "P1"), Label("waitLoop")) may repeat in a
// sibling block, as compilers write inline-asm wait loops:
//   ptx::block([&] {                      // {
//     ptx::Reg p(pred, "P1");             //   .reg .pred %P1;
//     ptx::Label wait("waitLoop");        //   $L__waitLoop:
//     ptx::place(wait);                   //   mbarrier.try_wait.parity.shared::cta.b64 %P1, [%rd1], %r2;
//     inst::mbarrier.try_wait.parity.shared_cta.b64(p, ptx::addr(bar), phase);
//     ptx::bra_unless(p, wait);           //   @!%P1 bra $L__waitLoop;
//   });                                   // }
// A name never hides one the block sees (it gets a suffix instead). Using a register or
// label of a block after it ended, or placing a label in another block than the one it
// was made in, is an error at that line.
void block(const std::function<void()>& body, ptx::SourceLocation where = ptx::SourceLocation::current());

// Reads a special register or any operand into a fresh register: one mov.
Reg read(const Operand& src, DType type, ptx::SourceLocation where = ptx::SourceLocation::current());
Reg read(const Operand& src, ptx::SourceLocation where = ptx::SourceLocation::current());

// An instruction from text, checked against the ISA table at trace time:
// ptx::asm_("ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1];")
void asm_(std::string_view text, ptx::SourceLocation where = ptx::SourceLocation::current());

}  // namespace ptx
