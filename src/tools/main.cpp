// warpsim: one CLI with subcommands. Parsing only; the work is in commands.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <filesystem>
#include <iostream>

#include "common/error.h"
#include "common/huge_pages.h"
#include "config/param.h"
#include "frontend/trace/synth.h"
#include "tools/commands.h"

namespace ws::tools {

// CLI11 answers `warpsim rn` with "a subcommand is required": name the word
// it did not know and the nearest subcommand instead. Returns an exit status
// when the first argument is neither an option nor a subcommand, else 0.
int check_subcommand_name(CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return 0;
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
  std::string word = argv[1];
  if (std::find(names.begin(), names.end(), word) != names.end()) return 0;
  std::string hint = config::nearest_name(word, names);
  std::cerr << "warpsim: error: unknown subcommand '" << word << "'"
            << (hint.empty() ? "" : ", did you mean '" + hint + "'?") << " (`warpsim --help` lists them)\n";
  return 1;
}

}  // namespace ws::tools

int main(int argc, char** argv) {
  CLI::App app{"warpsim: a cycle-level GPU simulator"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "warpsim 0.1");

  ws::tools::RunOptions run;
  CLI::App* run_cmd = app.add_subcommand("run", "simulate an Accel-Sim trace folder (or its kernelslist.g)");
  run_cmd->add_option("workload", run.workload, "trace folder or kernelslist.g")->required();
  run_cmd->add_option("--gpu", run.gpu, "GPU preset name (see `warpsim presets`) or a TOML file")
      ->capture_default_str();
  run_cmd->add_option("--set", run.sets, "override a parameter: key=value (repeatable)");
  run_cmd->add_option("--out", run.out, "output folder for stats.json and config.toml");
  run_cmd->add_option("--format", run.format, "what to print: summary, accelsim, json or none")
      ->check(CLI::IsMember({"summary", "accelsim", "json", "none"}))
      ->capture_default_str();
  run_cmd->add_option("--plan", run.plan,
                      "sampling plan (warpsim sample plan): simulate its representatives, project the rest");
  bool project_kernels = false;
  run_cmd->add_flag("--project-kernels", project_kernels,
                    "stop each kernel once its IPC is stable and project the rest (sampling.project_kernels)");
  std::string run_model;
  run_cmd->add_option("--model", run_model, "timing model: detailed or abstract (gpu.model)")
      ->check(CLI::IsMember({"detailed", "abstract"}));
  run_cmd->add_option("--compare", run.compare,
                      "also run this model and print per-kernel cycles of both, the error and the host speedup")
      ->check(CLI::IsMember({"detailed", "abstract"}));
  bool no_progress = false;
  run_cmd->add_flag("--no-progress", no_progress, "never show the progress line");
  // Host threads of a partitioned model: same results for any count.
  const char* threads_help = "host threads that run the model's partitions, at most one each (gpu.threads; "
                             "default: the CPUs this process may use; results do not depend on it; "
                             "docs/parallel.md)";
  unsigned run_threads = 0, exec_threads = 0;
  run_cmd->add_option("--threads", run_threads, threads_help)->check(CLI::Range(1, 256));

  ws::tools::ExecOptions exec;
  CLI::App* exec_cmd = app.add_subcommand(
      "exec", "run a CUDA program (nvcc -cudart shared) on the simulated GPU: warpsim exec [options] -- ./app args...");
  exec_cmd->add_option("--gpu", exec.gpu, "GPU preset name or a TOML file")->capture_default_str();
  exec_cmd->add_option("--set", exec.sets, "override a parameter: key=value (repeatable)");
  exec_cmd->add_flag("--timing", exec.timing, "run kernels through the cycle-level model (default: functional)");
  std::string exec_model;
  exec_cmd->add_option("--model", exec_model, "timing model under --timing: detailed or abstract (gpu.model)")
      ->check(CLI::IsMember({"detailed", "abstract"}));
  exec_cmd->add_option("--out", exec.out, "output folder for stats.json and config.toml");
  exec_cmd->add_option("--threads", exec_threads, threads_help)->check(CLI::Range(1, 256));
  CLI::Option* trace_out_opt =
      exec_cmd->add_option("--trace-out", exec.trace_out, "also write the kernels as an Accel-Sim trace folder");
  exec_cmd->add_flag("--binary", exec.trace_binary,
                     "with --trace-out: write binary kernel files (kernel-N.wst, docs/trace-format.md)")
      ->needs(trace_out_opt);
  exec_cmd->add_flag("-v,--verbose", exec.verbose, "runtime debug log on stderr");
  exec_cmd->add_option("--plan", exec.plan,
                       "sampling plan (warpsim sample plan; needs --timing): time its representatives, run the other "
                       "launches functionally, project the totals");
  exec_cmd->add_option("command", exec.command, "the program and its arguments (after --)")->required();

  // Everything after `correlate`, `tune` or `sweep` goes to the Python package untouched, --help included.
  CLI::App* correlate_cmd = app.add_subcommand(
      "correlate", "compare simulated runs with ncu/nvprof CSV: warpsim correlate --sim runs/ --hw hw.csv");
  correlate_cmd->set_help_flag();
  correlate_cmd->allow_extras();
  correlate_cmd->prefix_command();
  CLI::App* tune_cmd = app.add_subcommand(
      "tune", "turn microbenchmark results into a preset: warpsim tune --measured ubench-results.txt --base qv100 "
              "--out mygpu.toml");
  tune_cmd->set_help_flag();
  tune_cmd->allow_extras();
  tune_cmd->prefix_command();
  CLI::App* sweep_cmd = app.add_subcommand(
      "sweep", "design-space sweeps: warpsim sweep run study.toml --out study/; sweep status|report study/ (docs/dse.md)");
  sweep_cmd->set_help_flag();
  sweep_cmd->allow_extras();
  sweep_cmd->prefix_command();

  ws::tools::ProfileOptions profile;
  CLI::App* profile_cmd = app.add_subcommand(
      "profile", "per-kernel features for kernel sampling, no timing: warpsim profile --out prof.csv TRACES, "
                 "or warpsim profile --out prof.csv -- ./app args...");
  std::vector<std::string> profile_args;
  profile_cmd->add_option("workload", profile_args, "trace folder or kernelslist.g; or, after --, a CUDA program "
                                                    "and its arguments (run functionally)")
      ->required();
  profile_cmd->add_option("--out", profile.out, "CSV file to write (Nsight Compute metric names)")->required();
  profile_cmd->add_option("--full-launches", profile.full_launches,
                          "two-level profiling: features of the first N launches only, the others just name, grid "
                          "and block (sample plan classifies them); 0: all")
      ->capture_default_str();
  profile_cmd->add_option("--gpu", profile.gpu, "a program's GPU preset (the device it sees), and the GPU "
                                                "--cycles-model times")
      ->capture_default_str();
  profile_cmd->add_option("--set", profile.sets, "a program's parameter override: key=value (repeatable)");
  profile_cmd
      ->add_option("--cycles-model", profile.cycles_model,
                   "then run the workload through this timing model and add each launch's cycles to the CSV "
                   "(gpc__cycles_elapsed.max), for sample plan to check its groupings against (--gpu and --set "
                   "apply)")
      ->check(CLI::IsMember({"abstract", "detailed"}));
  bool profile_quiet = false;
  profile_cmd->add_flag("--no-progress", profile_quiet, "no progress line");
  // Everything after `sample` goes to the Python package (warpsim sample plan ...).
  CLI::App* sample_cmd = app.add_subcommand(
      "sample", "choose representative kernels: warpsim sample plan prof.csv --target-error 5% --out plan.json");
  sample_cmd->set_help_flag();
  sample_cmd->allow_extras();
  sample_cmd->prefix_command();

  std::string convert_in, convert_out;
  CLI::App* convert_cmd = app.add_subcommand(
      "convert", "text trace folder -> binary (.wst) trace folder, or back: warpsim convert IN OUT (docs/trace-format.md)");
  convert_cmd->add_option("in", convert_in, "trace folder, kernelslist.g, or one kernel file (.traceg[.xz] or .wst)")
      ->required();
  convert_cmd->add_option("out", convert_out, "output folder (or file, for one kernel file)")->required();

  app.add_subcommand("presets", "list the GPU presets");
  bool markdown = false, params_json = false;
  CLI::App* params_cmd = app.add_subcommand("params", "list every parameter with type, default, unit, description");
  auto* md_flag = params_cmd->add_flag("--markdown", markdown, "print a Markdown table (docs/params.md)");
  params_cmd->add_flag("--json", params_json, "print JSON (name, type, default, unit, min, max, description)")
      ->excludes(md_flag);
  std::string counters_gpu = "qv100";
  CLI::App* counters_cmd =
      app.add_subcommand("counters", "list the statistics counters (stats.json `counters`) with their meaning");
  counters_cmd->add_option("--gpu", counters_gpu, "GPU preset name or a TOML file")->capture_default_str();
  counters_cmd->add_flag("--markdown", markdown, "print a Markdown table (docs/counters.md)");

  ws::frontend::SynthSpec synth;
  std::string synth_out;
  CLI::App* synth_cmd = app.add_subcommand("synth", "write a synthetic kernel as an Accel-Sim trace folder");
  synth_cmd->add_option("kind", synth.kind, "stream, chase or compute")
      ->required()
      ->check(CLI::IsMember({"stream", "chase", "compute"}));
  synth_cmd->add_option("--out", synth_out, "output folder")->required();
  synth_cmd->add_option("--ctas", synth.ctas, "CTAs in the grid")->capture_default_str();
  synth_cmd->add_option("--threads", synth.threads_per_cta, "threads per CTA")->capture_default_str();
  synth_cmd->add_option("--iterations", synth.iterations, "loop iterations per thread")->capture_default_str();
  synth_cmd->add_option("--footprint", synth.footprint_bytes, "bytes per buffer (stream, chase)")
      ->capture_default_str();
  synth_cmd->add_option("--stride", synth.stride_bytes, "chase: bytes between successive pointers")
      ->capture_default_str();
  synth_cmd->add_option("--chains", synth.chains, "compute: independent FFMA chains")->capture_default_str();
  synth_cmd->add_option("--binary-version", synth.binary_version, "header binary version")->capture_default_str();

  if (int rc = ws::tools::check_subcommand_name(app, argc, argv)) return rc;
  CLI11_PARSE(app, argc, argv);
  try {
    if (*run_cmd) {
      ws::reexec_with_huge_pages(argv);  // returns unless it could not help
      run.progress = !no_progress;
      if (project_kernels) run.sets.push_back("sampling.project_kernels=true");
      if (!run_model.empty()) run.sets.push_back("gpu.model=" + run_model);
      if (run_threads) run.sets.push_back("gpu.threads=" + std::to_string(run_threads));
      return ws::tools::run_command(run);
    }
    if (*exec_cmd) {
      if (!exec_model.empty()) exec.sets.push_back("gpu.model=" + exec_model);
      if (exec_threads) exec.sets.push_back("gpu.threads=" + std::to_string(exec_threads));
      return ws::tools::exec_command(exec);
    }
    if (*correlate_cmd) return ws::tools::python_tool_command("correlate", correlate_cmd->remaining());
    if (*tune_cmd) return ws::tools::python_tool_command("tune", tune_cmd->remaining());
    if (*sample_cmd) return ws::tools::python_tool_command("sample", sample_cmd->remaining());
    if (*sweep_cmd) return ws::tools::python_tool_command("sweep", sweep_cmd->remaining());
    if (*profile_cmd) {
      profile.progress = !profile_quiet;
      // After `--` the arguments are a program's command line, else one trace folder.
      if (std::find_if(argv, argv + argc, [](const char* a) { return std::string(a) == "--"; }) != argv + argc)
        profile.command = profile_args;
      else if (profile_args.size() == 1)
        profile.workload = profile_args[0];
      else
        throw ws::InputError("profile: one trace folder, or a program after -- (warpsim profile --out p.csv -- ./app)");
      return ws::tools::profile_command(profile);
    }
    if (*convert_cmd) return ws::tools::convert_command(convert_in, convert_out);
    if (app.got_subcommand("presets")) return ws::tools::presets_command();
    if (*params_cmd) return ws::tools::params_command(params_json ? "json" : markdown ? "markdown" : "text");
    if (*counters_cmd) return ws::tools::counters_command(counters_gpu, markdown);
    if (*synth_cmd) {
      ws::frontend::write_synthetic(synth, synth_out);
      std::cout << "wrote " << ws::frontend::synth_instruction_count(synth) << " warp instructions to " << synth_out
                << "\n";
      return 0;
    }
  } catch (const ws::Error& e) {
    std::cerr << "warpsim: error: " << e.what() << "\n";
    return 1;
  } catch (const std::filesystem::filesystem_error& e) {
    std::cerr << "warpsim: error: " << e.what() << "\n";  // a file or folder we were given or told to write
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "warpsim: internal error: " << e.what() << "\n";
    return 2;
  }
  return 0;
}
