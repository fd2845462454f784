// `calibrate --on-gpu --profile` runs PyTorch helpers on the GPU machine (python_helper.cpp); CI has no GPU and no
// PyTorch. These cases run the CLI against stand-in helpers under a catalogue folder of their own: each stand-in logs
// the command it was given and writes what the real one writes, taken from committed measurements. They check the
// composition (which helpers, with which arguments, where their files land, what is read back and refitted), not the
// measurement. Skipped where python3 is absent.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_support.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

bool have_python() { return std::system("python3 -c '' >/dev/null 2>&1") == 0; }

// A catalogue folder whose hardware/ and models/ are the source tree's, with `scripts` as its production helpers.
fs::path stand_in_root(const std::string& name, const std::string& helper, const std::string& code) {
  const fs::path root = cli_test::tmp_dir() / name;
  fs::remove_all(root);
  fs::create_directories(root / "validation/scripts/production");
  fs::create_directory_symlink(fs::path(test::root()) / "models", root / "models");
  fs::create_directories(root / "hardware");
  fs::copy(fs::path(test::root()) / "hardware", root / "hardware", fs::copy_options::recursive);
  std::ofstream(root / "validation/scripts/production" / helper) << code;
  return root;
}

cli_test::Run run_in(const fs::path& root, const std::string& args) {
  const fs::path out = root / "cli.out", err = root / "cli.err";
  const std::string cmd = "REAL_ROOT='" + test::root() + "' PERFMODEL_DATA_DIR='" + root.string() + "' '" +
                          PERFMODEL_TEST_CLI + "' " + args + " >'" + out.string() + "' 2>'" + err.string() + "' </dev/null";
  const int status = std::system(cmd.c_str());
  cli_test::Run r;
  r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = cli_test::slurp(out);
  r.err = cli_test::slurp(err);
  return r;
}

}  // namespace

TEST_CASE("calibrate --on-gpu --profile compiled --only graph: compiled_gaps.py a model a process, its records refitted") {
  if (!have_python()) {
    MESSAGE("python3 not found: skipped");
    return;
  }
  // compiled_gaps.py's stand-in: each point a committed h200-compiled2 record relabelled with the asked model, depth,
  // batch and context.
  const fs::path root = stand_in_root("compiled", "compiled_gaps.py", R"(import json, os, sys
a = sys.argv[1:]
out = a[a.index("--out") + 1]
open(os.path.join(os.environ["PERFMODEL_DATA_DIR"], "argv.log"), "a").write(" ".join(a[:3]) + "\n")
src = [json.loads(l) for l in open(os.environ["REAL_ROOT"] + "/validation/results/h200-compiled2/compiled2.jsonl")]
with open(out, "a") as f:
    for i, pt in enumerate(a[2].split(",")):
        b, ctx = map(int, pt.split(":"))
        r = dict(src[i]); r.update(model=a[0], layers=int(a[1]), batch=b, ctx=ctx, kv_len=ctx + 48)
        f.write(json.dumps(r) + "\n")
)");
  const std::string cal = (root / "hardware/h200.calibration.yaml").string();
  const auto r = run_in(root, "calibrate --on-gpu --profile compiled --card h200 --only graph --calibration " + cal +
                                  " --output " + (root / "out.yaml").string() + " --format json");
  SHOW(r);
  REQUIRE(r.rc == 0);
  const std::string argv = cli_test::slurp(root / "argv.log");
  CHECK(argv == "llama3-8b 4 1:512,16:2048\nqwen2.5-7b 4 1:1024,8:2048\nllama2-7b 8 1:1024,32:512\n");
  CHECK(fs::exists(root / "out.yaml.compiled-steps/compiled_steps.jsonl"));
  const test::Json j = test::parse_json(r.out);
  CHECK(j.at("graph.steps")->num == 6);
  CHECK(j.at("graph.fit_steps")->num == 3);
  CHECK(j.at("graph.graph_call_host_s")->num > 0);
  const std::string written = cli_test::slurp(root / "out.yaml");
  CHECK(test::contains(written, "graph_call_host: "));
  CHECK(test::contains(written, "calibrate --profile compiled --only graph"));
}

TEST_CASE("calibrate --on-gpu --profile eager --only flash2,flash2_decode: the mechanism sets measured beside the default") {
  if (!have_python()) {
    MESSAGE("python3 not found: skipped");
    return;
  }
  // run_all.py's stand-in: the committed file of the shapes asked for.
  const fs::path root = stand_in_root("flash2", "run_all.py", R"(import os, shutil, sys
a = sys.argv[1:]
shapes = a[a.index("--shapes") + 1] if "--shapes" in a else "default"
open(os.path.join(os.environ["PERFMODEL_DATA_DIR"], "argv.log"), "a").write(shapes + " " + a[a.index("--groups") + 1] + "\n")
src = {"default": "h200-production", "oddsplit": "h200-oddsplit", "lonecta": "h200-lonecta"}[shapes]
os.makedirs(a[0], exist_ok=True)
shutil.copy(os.environ["REAL_ROOT"] + "/validation/results/" + src + "/kernels.json", a[0] + "/kernels.json")
)");
  const std::string cal = (root / "hardware/h200.calibration.yaml").string();
  const auto r = run_in(root, "calibrate --on-gpu --profile eager --card h200 --only flash2,flash2_decode --calibration " +
                                  cal + " --output " + (root / "out.yaml").string() + " --format json");
  SHOW(r);
  REQUIRE(r.rc == 0);
  CHECK(cli_test::slurp(root / "argv.log") == "default attention\noddsplit attention\nlonecta attention\n");
  const test::Json j = test::parse_json(r.out);
  // With the mechanism sets no key of either part stays undetermined for want of calls, but the non-split decode
  // keys (with flash2 measured, FlashAttention-2's one-kernel decode prices on its prefill tiles).
  for (const test::Json& k : j.at("flash2.undetermined")->arr) CHECK(k.str != "flash2.lone_pace");
  for (const test::Json& k : j.at("flash2_decode.undetermined")->arr) CHECK(k.str != "flash2.uneven_dim");
  CHECK(j.at("flash2_decode.uneven_dim")->num > 1.0);
}
