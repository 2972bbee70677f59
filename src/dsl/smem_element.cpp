// Shared-memory arrays indexed with registers: buf[warp][0] = acc (docs/dsl.md, "Shared memory").
#include <optional>

#include <fmt/format.h>

#include "ptxpp/dsl/inst.hpp"
#include "ptxpp/dsl/smem.hpp"
#include "trace.hpp"

namespace ptx::smem {

using dsl::Trace;

namespace {

// The ld/st type of an element: .f32/.f64, .bN for the other floats, the integer type itself.
std::string access_type(DType t, ptx::SourceLocation where) {
  if (bits(t) < 16 || bits(t) > 64 || t == DType::pred || t == DType::tf32)
    throw Error(
        fmt::format("indexed shared memory holds 16-, 32- or 64-bit elements, not {}; use ptx::inst::ld / st", name(t)),
        where);
  if (t == DType::f32 || t == DType::f64) return std::string(name(t));
  if (is_float(t)) return fmt::format(".b{}", bits(t));
  return std::string(name(integer_like(t)));
}

}  // namespace

Element::Element(const Buffer& buf, std::vector<Index> indices, ptx::SourceLocation where)
    : buf_(&buf), indices_(std::move(indices)), where_(where) {
  const std::vector<int64_t>& shape = buf.shape();
  if (indices_.size() > shape.size())
    throw Error(fmt::format("{} indices for a shared array of rank {}", indices_.size(), shape.size()), where);
  Trace& t = Trace::current(where);
  const size_t d = indices_.size() - 1;
  const Index& i = indices_.back();
  if (!i.is_reg() && (i.value() < 0 || i.value() >= shape[d]))
    throw Error(fmt::format("index {} is outside dimension {} of the shared array (size {})", i.value(), d, shape[d]),
                where);
  if (i.is_reg()) {
    t.check_reg(i.reg(), where);
    if (!is_integer(i.reg().type()) || bits(i.reg().type()) != 32 || is_signed(i.reg().type()))
      throw Error(fmt::format("a shared array index register must be .u32 or .b32, not {}", name(i.reg().type())),
                  where);
  }
}

Element Element::operator[](int64_t i) const {
  std::vector<Index> next(indices_.begin(), indices_.end());
  next.emplace_back(i);
  return Element(*buf_, std::move(next), where_);
}

Element Element::operator[](const Reg& i) const {
  std::vector<Index> next(indices_.begin(), indices_.end());
  next.emplace_back(i);
  return Element(*buf_, std::move(next), where_);
}

Element Buffer::operator[](const Reg& i) const { return Element(*this, {Index(i)}, {}); }

Element Buffer::at(std::span<const Index> indices, ptx::SourceLocation where) const {
  if (indices.empty()) throw Error("a shared array access needs at least one index", where);
  std::vector<Index> done;
  std::optional<Element> e;
  for (const Index& i : indices) {
    done.push_back(i);
    e.emplace(*this, done, where);  // checks each index as it is added
  }
  return *e;
}

namespace {

// mov.u32 a, sym;  mad.lo.u32 a, i, stride_bytes, a (per register index);  the address [a+constant]
Operand element_address(const Buffer& buf, const std::vector<Index>& indices, ptx::SourceLocation where) {
  const std::vector<int64_t>& shape = buf.shape();
  if (indices.size() != shape.size())
    throw Error(fmt::format("a shared array of rank {} accessed with {} indices", shape.size(), indices.size()), where);
  Trace& t = Trace::current(where);
  const int64_t elem = bits(buf.dtype()) / 8;
  std::vector<int64_t> stride(shape.size(), elem);
  for (size_t d = shape.size() - 1; d > 0; --d) stride[d - 1] = stride[d] * shape[d];
  int64_t constant = 0;
  bool any_reg = false;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (indices[d].is_reg())
      any_reg = true;
    else
      constant += indices[d].value() * stride[d];
  }
  if (!any_reg) return buf.addr(constant, where);
  Reg a = buf.base(where);
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d].is_reg()) continue;
    t.check_reg(indices[d].reg(), where);
    const Operand ops[] = {Operand(a), Operand(indices[d].reg()), Operand(stride[d]), Operand(a)};
    t.emit(inst::mad.lo.u32, ops, where);
  }
  return addr(a, constant);
}

}  // namespace

Reg Element::load(ptx::SourceLocation where) const {
  const std::string type = access_type(buf_->dtype(), where);
  const Operand address = element_address(*buf_, indices_, where);
  Trace& t = Trace::current(where);
  Reg d = t.new_reg(buf_->dtype(), {}, where);
  const Operand ops[] = {Operand(d), address};
  t.emit(dsl::RuntimeChain(inst::ld.shared).then(type, where), ops, where);
  return d;
}

void Element::store(const Operand& value, ptx::SourceLocation where) const {
  const std::string type = access_type(buf_->dtype(), where);
  const Operand address = element_address(*buf_, indices_, where);
  const Operand ops[] = {address, value};
  Trace::current(where).emit(dsl::RuntimeChain(inst::st.shared).then(type, where), ops, where);
}

}  // namespace ptx::smem
