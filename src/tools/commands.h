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
  std::string plan;                  // sampling plan: simulate its representatives only
  std::string compare;               // a second timing model to run and compare with (--compare)
};

struct ExecOptions {
  std::vector<std::string> command;  // program and its arguments
  std::string gpu = "qv100";
  std::vector<std::string> sets;
  bool timing = false;               // cycle-level model instead of functional only
  std::string out;                   // results folder (stats.json, config.toml)
  std::string trace_out;             // write an Accel-Sim trace folder
  bool trace_binary = false;         // ... with binary kernel files (.wst)
  bool verbose = false;              // runtime debug log on stderr
  std::string plan;                  // sampling plan (with timing): time its representatives only
  std::string profile_out;           // write per-launch features here (functional run; warpsim profile)
  uint32_t profile_full = 0;         // ... of the first N launches only (0: all); the rest name, grid, block
};

struct ProfileOptions {
  std::string workload;               // trace folder or kernelslist.g
  std::vector<std::string> command;   // or a CUDA program and its arguments (after --)
  std::string gpu = "qv100";          // a program's simulated GPU (device properties it reads)
  std::vector<std::string> sets;
  std::string out;                    // CSV file (Nsight Compute metric names)
  uint32_t full_launches = 0;         // two-level: features of the first N launches only (0: all)
  std::string cycles_model;           // also time every launch with this model (gpu.model); "" none
  bool progress = true;
};

int run_command(const RunOptions& opt);
// Text trace folders to binary ones (.wst) and back: docs/trace-format.md.
int convert_command(const std::string& in, const std::string& out);
// Per-kernel features (no timing) into a CSV: docs/sampling.md.
int profile_command(const ProfileOptions& opt);
// Replaces the process with the program (returns only when it cannot start).
int exec_command(const ExecOptions& opt);
// Runs `python3 -m warpsim TOOL ARGS` for TOOL correlate or tune (returns only
// when it cannot start).
int python_tool_command(const std::string& tool, const std::vector<std::string>& args);
// The folder holding the Python package warpsim/: $WARPSIM_PYTHONPATH, else
// python/ beside configs/ (common/paths.h).
std::string python_package_dir();
// $WARPSIM_PYTHON, else the first of python3 (PATH) and /usr/bin/python3 that
// has the modules (the correlator's by default); "" if none has.
std::string choose_python(const std::vector<std::string>& modules = {"pandas", "numpy", "matplotlib"});
int presets_command();
// format: "text", "markdown" (docs/params.md) or "json" (for scripts).
int params_command(const std::string& format);
// Every counter a GPU built from `preset` registers, one row per family
// (indices as N), with its description: docs/counters.md.
int counters_command(const std::string& preset, bool markdown);

}  // namespace ws::tools
