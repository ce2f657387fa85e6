// The warpsim subcommands; main.cpp only parses the command line.
#pragma once
#include <string>
#include <vector>

namespace ws::tools {

struct RunOptions {
  std::string workload;              // trace folder or kernelslist.g
  std::string gpu = "qv100";         // preset name or TOML path
  std::vector<std::string> sets;     // key=value overrides
  std::string out;                   // output folder (stats.json, config.toml)
  std::string format = "summary";    // summary | accelsim | json | none
  bool progress = true;              // progress line when stderr is a terminal
};

int run_command(const RunOptions& opt);
int presets_command();
int params_command(bool markdown);

}  // namespace ws::tools
