#include "completion.hpp"

#include <fmt/format.h>

#include <memory>

#include "output.hpp"
#include "usage.hpp"

namespace ptxpp_cli {

namespace {

constexpr const char* kHead = R"(# bash completion for ptxpp, written by `ptxpp completion bash` from ptxpp's own
# option definitions. Load it with: source <(ptxpp completion bash)
_ptxpp() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} command= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      )";
// (the command names go between kHead and kBody)
constexpr const char* kBody = R"() command=${COMP_WORDS[i]}; break ;;
    esac
  done
  local options= takes_value= words=
  case $command in
)";

constexpr const char* kTail = R"(  esac
  if [[ $takes_value == *" $prev "* ]]; then
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  elif [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$options" -- "$cur"))
  elif [[ -n $words ]]; then
    COMPREPLY=($(compgen -W "$words" -- "$cur"))
  else
    compopt -o filenames 2>/dev/null
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -F _ptxpp ptxpp
)";

// The spellings of the options of `command` that take a value.
std::vector<std::string> value_options(CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options()) {
    if (o->get_group().empty() || o->get_positional() || o->get_items_expected_max() == 0) continue;
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

// The words of the first positional whose check is a fixed set (CLI::IsMember: "{a,b,c}").
std::vector<std::string> positional_words(CLI::App& command) {
  for (CLI::Option* o : command.get_options([](CLI::Option* o) { return o->get_positional(); })) {
    std::string set;
    try {
      set = o->get_validator()->get_description();
    } catch (const CLI::OptionNotFound&) {
      continue;  // no check
    }
    if (set.size() < 2 || set.front() != '{' || set.back() != '}') continue;
    std::vector<std::string> words;
    for (size_t at = 1; at < set.size();) {
      const size_t comma = std::min(set.find(',', at), set.size() - 1);
      words.push_back(set.substr(at, comma - at));
      at = comma + 1;
    }
    return words;
  }
  return {};
}

std::string case_arm(const std::string& pattern, const std::vector<std::string>& options,
                     const std::vector<std::string>& takes_value, const std::vector<std::string>& words) {
  return fmt::format("    {}) options='{}'; takes_value=' {} '; words='{}' ;;\n", pattern, fmt::join(options, " "),
                     fmt::join(takes_value, " "), fmt::join(words, " "));
}

}  // namespace

std::string bash_completion(CLI::App& app) {
  std::string script = kHead + fmt::format("{}", fmt::join(command_names(app), "|")) + kBody;
  script += case_arm("''", option_names(app), {}, command_names(app));
  for (CLI::App* c : visible_commands(app)) {
    // `help COMMAND` takes a command's name
    const auto words = c->get_name() == "help" ? command_names(app) : positional_words(*c);
    script += case_arm(c->get_name(), option_names(*c), value_options(*c), words);
  }
  return script + kTail;
}

void register_completion_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("completion", "Print a completion script for SHELL (bash), generated from ptxpp's options");
  struct Args {
    std::string shell, out;
  };
  auto a = std::make_shared<Args>();  // kept alive by the callback, which CLI11 keeps
  cmd->add_option("SHELL", a->shell, "The shell: bash")->required()->check(CLI::IsMember({"bash"}));
  cmd->add_option("-o,--output", a->out, "Output file (default: standard output)");
  cmd->callback([&app, a] { write_output(a->out, bash_completion(app)); });
}

}  // namespace ptxpp_cli
