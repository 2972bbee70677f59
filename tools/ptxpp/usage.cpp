#include "usage.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "output.hpp"
#include "suggest.hpp"

namespace ptxpp_cli {

namespace {

// An argument CLI11 could not place (an unknown option, a word too many), and the command it came to.
struct Unplaced {
  const CLI::App* command;
  std::string arg;
};
std::optional<Unplaced> first_unplaced(const CLI::App& command) {
  if (const auto left = command.remaining(); !left.empty()) return Unplaced{&command, left.front()};
  for (const CLI::App* sub : command.get_subcommands())
    if (auto u = first_unplaced(*sub)) return u;
  return std::nullopt;
}

std::string unplaced_message(CLI::App& root, const Unplaced& u) {
  const bool top = u.command == &root;
  const std::string prefix = top ? "" : u.command->get_name() + ": ";
  const std::string see = top ? " (see 'ptxpp help')" : " (see 'ptxpp help " + u.command->get_name() + "')";
  if (u.arg.size() > 1 && u.arg[0] == '-') {
    const std::string option = u.arg.substr(0, u.arg.find('='));
    const std::string hint = did_you_mean(option, option_names(*u.command));
    return prefix + "unknown option '" + option + "'" + (hint.empty() ? see : hint);
  }
  if (!top) return prefix + "unexpected argument '" + u.arg + "'" + see;
  const std::string hint = did_you_mean(u.arg, command_names(root));
  return "unknown command '" + u.arg + "'" + (hint.empty() ? see : hint);
}

std::string usage_message(CLI::App& root, const CLI::Error& error) {
  if (auto u = first_unplaced(root)) return unplaced_message(root, *u);
  const auto chosen = root.get_subcommands();
  if (chosen.empty() && error.get_name() == "RequiredError")
    return fmt::format("no command given; one of: {} (see 'ptxpp help')", fmt::join(command_names(root), ", "));
  return (chosen.empty() ? "" : chosen.front()->get_name() + ": ") + error.what();
}

std::string help_text(const CLI::App& command, const std::string& name) {
  return command.get_formatter()->make_help(&command, name, CLI::AppFormatMode::Normal);
}

}  // namespace

std::vector<CLI::App*> visible_commands(CLI::App& app) {
  return app.get_subcommands([](CLI::App* c) { return !c->get_group().empty(); });
}

std::vector<std::string> command_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* c : visible_commands(app)) names.push_back(c->get_name());
  return names;
}

std::vector<std::string> option_names(const CLI::App& command) {
  std::vector<std::string> names;
  for (const CLI::Option* o : command.get_options([](const CLI::Option* o) { return !o->get_group().empty(); })) {
    for (const std::string& s : o->get_snames()) names.push_back("-" + s);
    for (const std::string& l : o->get_lnames()) names.push_back("--" + l);
  }
  return names;
}

void use_ptxpp_usage_errors(CLI::App& app) {
  // CLI11 hands the failure message a const App; the root is ours, so its non-const self is at hand.
  app.failure_message(
      [&app](const CLI::App*, const CLI::Error& error) { return "ptxpp: error: " + usage_message(app, error) + "\n"; });
}

int handle_parse_error(const CLI::App& app, const CLI::ParseError& error) {
  // Help and version through write_output, so that a failed write is reported with its cause.
  const std::string name = error.get_name();
  if (name == "CallForHelp" || name == "CallForAllHelp") {
    const auto mode = name == "CallForHelp" ? CLI::AppFormatMode::Normal : CLI::AppFormatMode::All;
    return write_output("-", app.help("", mode)) ? kSuccess : kFailure;
  }
  if (name == "CallForVersion") return write_output("-", std::string(error.what()) + "\n") ? kSuccess : kFailure;
  return app.exit(error) == 0 ? kSuccess : kUsage;  // CLI11's own codes (105, 106, ...) are all usage errors
}

void register_help_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("help", "Print the help of ptxpp, or of COMMAND");
  auto name = std::make_shared<std::string>();
  cmd->add_option("COMMAND", *name, "A command, e.g. check");
  cmd->callback([&app, name] {
    if (name->empty()) {
      write_output("-", help_text(app, app.get_name()));
      return;
    }
    const auto commands = visible_commands(app);
    const auto it =
        std::find_if(commands.begin(), commands.end(), [&](const CLI::App* c) { return c->get_name() == *name; });
    if (it == commands.end()) {
      const std::string hint = did_you_mean(*name, command_names(app));
      throw UsageError("unknown command '" + *name + "'" + (hint.empty() ? " (see 'ptxpp help')" : hint));
    }
    write_output("-", help_text(**it, app.get_name() + " " + (*it)->get_name()));
  });
}

}  // namespace ptxpp_cli
