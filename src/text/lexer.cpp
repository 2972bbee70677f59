#include "ptxpp/text/lexer.hpp"

#include <array>
#include <cstring>
#include <string>

#include "syntax_error.hpp"

namespace ptx::text {

namespace {

enum CharClass : uint8_t {
  kOther = 0,
  kSpace = 1,     // ' ' \t \r \n \f \v
  kFollow = 2,    // [A-Za-z0-9_$]: may continue an identifier
  kLetter = 4,    // [A-Za-z]
  kDigit = 8,     // [0-9]
};

constexpr std::array<uint8_t, 256> make_classes() {
  std::array<uint8_t, 256> t{};
  for (char c : {' ', '\t', '\r', '\n', '\f', '\v'}) t[static_cast<unsigned char>(c)] = kSpace;
  for (int c = 'a'; c <= 'z'; ++c) t[c] = kFollow | kLetter;
  for (int c = 'A'; c <= 'Z'; ++c) t[c] = kFollow | kLetter;
  for (int c = '0'; c <= '9'; ++c) t[c] = kFollow | kDigit;
  t['_'] = kFollow;
  t['$'] = kFollow;
  return t;
}
constexpr std::array<uint8_t, 256> kClass = make_classes();

inline uint8_t cls(char c) { return kClass[static_cast<unsigned char>(c)]; }

}  // namespace

const char* describe(Tok t) {
  switch (t) {
    case Tok::Eof: return "end of input";
    case Tok::Ident: return "identifier";
    case Tok::DotWord: return "directive or modifier";
    case Tok::Number: return "number";
    case Tok::String: return "string";
    case Tok::Comma: return "','";
    case Tok::Semi: return "';'";
    case Tok::Colon: return "':'";
    case Tok::LBrace: return "'{'";
    case Tok::RBrace: return "'}'";
    case Tok::LBracket: return "'['";
    case Tok::RBracket: return "']'";
    case Tok::LParen: return "'('";
    case Tok::RParen: return "')'";
    case Tok::Lt: return "'<'";
    case Tok::Gt: return "'>'";
    case Tok::Plus: return "'+'";
    case Tok::Minus: return "'-'";
    case Tok::Star: return "'*'";
    case Tok::Slash: return "'/'";
    case Tok::Percent: return "'%'";
    case Tok::Amp: return "'&'";
    case Tok::Pipe: return "'|'";
    case Tok::Caret: return "'^'";
    case Tok::Tilde: return "'~'";
    case Tok::Bang: return "'!'";
    case Tok::At: return "'@'";
    case Tok::Assign: return "'='";
    case Tok::Question: return "'?'";
    case Tok::Shl: return "'<<'";
    case Tok::Shr: return "'>>'";
    case Tok::AndAnd: return "'&&'";
    case Tok::OrOr: return "'||'";
    case Tok::EqEq: return "'=='";
    case Tok::NotEq: return "'!='";
    case Tok::LtEq: return "'<='";
    case Tok::GtEq: return "'>='";
  }
  return "token";
}

void Lexer::fail(size_t at, const char* msg) const { throw detail::SyntaxError{at, msg}; }

size_t Lexer::skip_trivia(size_t p) const {
  const char* s = src_.data();
  const size_t n = src_.size();
  while (p < n) {
    const char c = s[p];
    if (cls(c) & kSpace) {
      ++p;
    } else if (c == '/' && p + 1 < n && s[p + 1] == '/') {
      const void* nl = std::memchr(s + p, '\n', n - p);
      p = nl ? static_cast<size_t>(static_cast<const char*>(nl) - s) : n;
    } else if (c == '/' && p + 1 < n && s[p + 1] == '*') {
      const size_t start = p;
      p += 2;
      for (;;) {
        const void* star = p < n ? std::memchr(s + p, '*', n - p) : nullptr;
        if (!star) fail(start, "unterminated block comment");
        p = static_cast<size_t>(static_cast<const char*>(star) - s) + 1;
        if (p < n && s[p] == '/') {
          ++p;
          break;
        }
      }
    } else {
      break;
    }
  }
  return p;
}

bool Lexer::colon_follows() const {
  const size_t p = skip_trivia(pos_);
  return p < src_.size() && src_[p] == ':';
}

void Lexer::next(Token& t) {
  const size_t trivia_start = pos_;
  size_t p = pos_;
  // Many tokens follow the previous one directly (`%r1,`): skip the call then.
  if (p < src_.size() && ((cls(src_[p]) & kSpace) || src_[p] == '/')) p = skip_trivia(p);
  t.lead = std::string_view(src_.data() + trivia_start, p - trivia_start);
  t.offset = static_cast<uint32_t>(p);
  const char* s = src_.data();
  const size_t n = src_.size();
  if (p >= n) {
    t.kind = Tok::Eof;
    t.text = {};
    pos_ = p;
    return;
  }
  const char c = s[p];
  size_t q = p + 1;
  auto two = [&](char second, Tok both, Tok one) {
    if (q < n && s[q] == second) {
      ++q;
      return both;
    }
    return one;
  };
  const uint8_t k = cls(c);
  if (k & kLetter) {
    while (q < n && (cls(s[q]) & kFollow)) ++q;
    t.kind = Tok::Ident;
  } else if ((c == '%' || c == '$' || c == '_') && (c == '_' || (q < n && (cls(s[q]) & kFollow)))) {
    // `%` alone is the remainder operator; `_` alone is the sink.
    while (q < n && (cls(s[q]) & kFollow)) ++q;
    t.kind = Tok::Ident;
  } else if (k & kDigit) {
    const char* err = nullptr;
    const size_t len = scan_number(src_.substr(p), t.number, err);
    if (len == 0) fail(p, err);
    q = p + len;
    t.kind = Tok::Number;
  } else if (c == '.') {
    if (q >= n || !(cls(s[q]) & kFollow)) fail(p, "expected a directive or modifier name after '.'");
    for (;;) {
      while (q < n && (cls(s[q]) & kFollow)) ++q;
      // `::` joins the parts of a modifier: .shared::cta, .L2::cache_hint
      if (q + 2 < n && s[q] == ':' && s[q + 1] == ':' && (cls(s[q + 2]) & kFollow)) {
        q += 2;
        continue;
      }
      break;
    }
    t.kind = Tok::DotWord;
  } else {
    switch (c) {
      case '"': {
        while (q < n && s[q] != '"') {
          if (s[q] == '\n') fail(p, "unterminated string literal");
          if (s[q] == '\\') ++q;
          ++q;
        }
        if (q >= n) fail(p, "unterminated string literal");
        ++q;
        t.kind = Tok::String;
        break;
      }
      case ',': t.kind = Tok::Comma; break;
      case ';': t.kind = Tok::Semi; break;
      case ':': t.kind = Tok::Colon; break;
      case '{': t.kind = Tok::LBrace; break;
      case '}': t.kind = Tok::RBrace; break;
      case '[': t.kind = Tok::LBracket; break;
      case ']': t.kind = Tok::RBracket; break;
      case '(': t.kind = Tok::LParen; break;
      case ')': t.kind = Tok::RParen; break;
      case '+': t.kind = Tok::Plus; break;
      case '-': t.kind = Tok::Minus; break;
      case '*': t.kind = Tok::Star; break;
      case '/': t.kind = Tok::Slash; break;
      case '%': t.kind = Tok::Percent; break;
      case '^': t.kind = Tok::Caret; break;
      case '~': t.kind = Tok::Tilde; break;
      case '@': t.kind = Tok::At; break;
      case '?': t.kind = Tok::Question; break;
      case '<': t.kind = q < n && s[q] == '=' ? (++q, Tok::LtEq) : two('<', Tok::Shl, Tok::Lt); break;
      case '>': t.kind = q < n && s[q] == '=' ? (++q, Tok::GtEq) : two('>', Tok::Shr, Tok::Gt); break;
      case '&': t.kind = two('&', Tok::AndAnd, Tok::Amp); break;
      case '|': t.kind = two('|', Tok::OrOr, Tok::Pipe); break;
      case '=': t.kind = two('=', Tok::EqEq, Tok::Assign); break;
      case '!': t.kind = two('=', Tok::NotEq, Tok::Bang); break;
      case '#':
        fail(p, "preprocessor lines are not PTX (ptxas does not accept them)");
      default: {
        const auto u = static_cast<unsigned char>(c);
        if (u < 0x20 || u >= 0x7f) fail(p, "unexpected byte outside a comment or string");
        fail(p, "unexpected character");
      }
    }
  }
  t.text = std::string_view(src_.data() + p, q - p);
  pos_ = q;
}

}  // namespace ptx::text
