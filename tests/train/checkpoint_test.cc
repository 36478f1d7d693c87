#include "cpuft/train/checkpoint.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <vector>

#include "common/temp_dir.h"
#include "cpuft/io/safetensors.h"
#include "cpuft/train/trainer_state.h"
#include "cpuft/util/atomic_file.h"
#include "cpuft/util/error.h"
#include "cpuft/util/read_file.h"

namespace fs = std::filesystem;

namespace {

// A two-parameter "model" with its Adam moments.
struct Fixture {
  std::vector<float> w = {1, 2, 3, 4, 5, 6}, b = {0.5f, -0.5f};
  std::vector<float> mw = {0.1f, 0.2f, 0.3f, 0.4f, 0.5f, 0.6f}, mb = {-1, 1};
  std::vector<float> vw = {1e-3f, 2e-3f, 3e-3f, 4e-3f, 5e-3f, 6e-3f}, vb = {7, 8};
  cpuft::NamedArrays m() { return {{"qa.weight", {2, 3}, mw.data()}, {"qa.bias", {2}, mb.data()}}; }
  cpuft::NamedArrays v() { return {{"qa.weight", {2, 3}, vw.data()}, {"qa.bias", {2}, vb.data()}}; }

  void write_model(const std::string& dir) const {
    cpuft::write_safetensors(dir + "/model.safetensors",
                             {{"qa.weight", {2, 3}, w.data()}, {"qa.bias", {2}, b.data()}});
    cpuft::write_file_atomic(dir + "/config.json", "{}\n");
  }

  cpuft::CheckpointState state(int64_t step) const {
    cpuft::CheckpointState s;
    s.progress.global_step = step;
    s.progress.epoch = 1;
    s.progress.batches_in_epoch = 3;
    s.samples_seen = 56;
    s.adam_step = step;
    s.scheduler_step = step;
    s.lr_scheduler_type = "cosine";
    s.base_lr = 3e-5;
    s.warmup_steps = 2;
    s.max_steps = 20;
    s.seed = 42;
    s.data_seed = 7;
    s.progress.loss_sum = 12.5;
    s.progress.loss_since_log = 1.25;
    s.progress.last_logged_step = step - 1;
    s.progress.total_flos = 1.5e12;
    s.world_size = 2;
    s.args_hash = "0123456789abcdef";
    return s;
  }

  std::string trainer_state(int64_t step) const {
    cpuft::TrainerState ts;
    ts.global_step = step;
    ts.max_steps = 20;
    return ts.to_json();
  }

  std::string save(const std::string& out, int64_t step) {
    return cpuft::save_checkpoint(
        out, step, state(step), [this](const std::string& d) { write_model(d); }, m(), v(), trainer_state(step));
  }
};

// Destination buffers shaped as the model expects.
struct Dest {
  std::vector<float> mw = std::vector<float>(6), mb = std::vector<float>(2);
  std::vector<float> vw = std::vector<float>(6), vb = std::vector<float>(2);
  cpuft::NamedArrays m() { return {{"qa.weight", {2, 3}, mw.data()}, {"qa.bias", {2}, mb.data()}}; }
  cpuft::NamedArrays v() { return {{"qa.weight", {2, 3}, vw.data()}, {"qa.bias", {2}, vb.data()}}; }
};

std::string load_error(const std::string& dir, cpuft::NamedArrays m, cpuft::NamedArrays v) {
  try {
    cpuft::load_checkpoint(dir, m, v);
  } catch (const cpuft::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(Checkpoint, RoundTripRestoresMomentsAndState) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  std::string dir = f.save(out, 10);
  EXPECT_EQ(dir, out + "/checkpoint-10");
  for (const char* file : {"model.safetensors", "config.json", "optimizer.safetensors", "trainer_state.json",
                           "cpuft_state.json"})
    EXPECT_TRUE(fs::is_regular_file(dir + "/" + file)) << file;
  Dest d;
  auto loaded = cpuft::load_checkpoint(dir, d.m(), d.v());
  EXPECT_EQ(d.mw, f.mw);
  EXPECT_EQ(d.mb, f.mb);
  EXPECT_EQ(d.vw, f.vw);
  EXPECT_EQ(d.vb, f.vb);
  const auto& s = loaded.state;
  EXPECT_EQ(s.progress.global_step, 10);
  EXPECT_EQ(s.progress.epoch, 1);
  EXPECT_EQ(s.progress.batches_in_epoch, 3);
  EXPECT_EQ(s.samples_seen, 56);
  EXPECT_EQ(s.adam_step, 10);
  EXPECT_EQ(s.lr_scheduler_type, "cosine");
  EXPECT_EQ(s.base_lr, 3e-5);
  EXPECT_EQ(s.data_seed, 7);
  EXPECT_EQ(s.progress.loss_since_log, 1.25);
  EXPECT_EQ(s.progress.total_flos, 1.5e12);
  EXPECT_EQ(s.world_size, 2);
  EXPECT_EQ(s.args_hash, "0123456789abcdef");
  EXPECT_EQ(loaded.trainer_state_json, f.trainer_state(10));
  EXPECT_EQ(loaded.model_file, dir + "/model.safetensors");
  // Only the committed directory remains: no temporary directory is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST(Checkpoint, SavingTheSameStepAgainReplacesIt) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  f.save(out, 4);
  f.mb = {9, 9};
  f.save(out, 4);
  Dest d;
  cpuft::load_checkpoint(out + "/checkpoint-4", d.m(), d.v());
  EXPECT_EQ(d.mb, (std::vector<float>{9, 9}));
  EXPECT_EQ(std::distance(fs::directory_iterator(out), fs::directory_iterator()), 1);
}

TEST(Checkpoint, MissingFileIsReported) {
  Fixture f;
  std::string dir = f.save(cpuft_test::temp_dir_until_exit(), 3);
  fs::remove(dir + "/optimizer.safetensors");
  Dest d;
  EXPECT_EQ(load_error(dir, d.m(), d.v()), dir + "/optimizer.safetensors: missing; the checkpoint is incomplete");
  EXPECT_EQ(load_error(dir + "/nope", d.m(), d.v()), dir + "/nope: not a checkpoint directory (missing)");
}

TEST(Checkpoint, TruncatedOptimizerFileIsReported) {
  Fixture f;
  std::string dir = f.save(cpuft_test::temp_dir_until_exit(), 3);
  const std::string path = dir + "/optimizer.safetensors";
  ASSERT_EQ(::truncate(path.c_str(), static_cast<off_t>(fs::file_size(path) - 8)), 0);
  Dest d;
  std::string e = load_error(dir, d.m(), d.v());
  EXPECT_NE(e.find(path), std::string::npos) << e;
}

TEST(Checkpoint, WrongShapesMissingAndExtraTensorsAreReported) {
  Fixture f;
  std::string dir = f.save(cpuft_test::temp_dir_until_exit(), 3);
  const std::string opt = dir + "/optimizer.safetensors";
  std::vector<float> buf(6), buf2(6), bias(2), bias2(2), extra(4), extra2(4);
  EXPECT_EQ(load_error(dir, {{"qa.weight", {3, 2}, buf.data()}, {"qa.bias", {2}, bias.data()}},
                       {{"qa.weight", {3, 2}, buf2.data()}, {"qa.bias", {2}, bias2.data()}}),
            opt + ": tensor 'exp_avg.qa.weight': shape [2, 3], expected [3, 2]");
  EXPECT_EQ(load_error(dir,
                       {{"qa.weight", {2, 3}, buf.data()}, {"qa.bias", {2}, bias.data()}, {"new", {4}, extra.data()}},
                       {{"qa.weight", {2, 3}, buf2.data()}, {"qa.bias", {2}, bias2.data()}, {"new", {4}, extra2.data()}}),
            opt + ": tensor 'exp_avg.new': missing, expected shape [4]");
  EXPECT_EQ(load_error(dir, {{"qa.weight", {2, 3}, buf.data()}}, {{"qa.weight", {2, 3}, buf2.data()}}),
            opt + ": tensor 'exp_avg.qa.bias': not a moment of any parameter of this model");
}

TEST(Checkpoint, CorruptOrForeignStateIsReported) {
  Fixture f;
  std::string dir = f.save(cpuft_test::temp_dir_until_exit(), 3);
  const std::string path = dir + "/cpuft_state.json";
  std::string text = cpuft::read_file(path);
  Dest d;
  std::string v3 = text;
  v3.replace(v3.find("\"format_version\": 2"), 19, "\"format_version\": 3");
  cpuft::write_file_atomic(path, v3);
  EXPECT_EQ(load_error(dir, d.m(), d.v()),
            path + ": format_version: found 3, expected 2 (written by a different cpuft version)");
  // Version 1 recorded neither its files nor what it was made from: refused, saying so.
  std::string v1 = text;
  v1.replace(v1.find("\"format_version\": 2"), 19, "\"format_version\": 1");
  cpuft::write_file_atomic(path, v1);
  EXPECT_EQ(load_error(dir, d.m(), d.v()),
            path + ": format_version: found 1, expected 2 (written by an earlier cpuft, which recorded neither its "
                   "files nor what it was made from, so it cannot be checked; finish that run with the cpuft that "
                   "wrote it, or train afresh)");
  std::string bad_step = text;
  bad_step.replace(bad_step.find("\"global_step\": 3"), 16, "\"global_step\": \"x\"");
  cpuft::write_file_atomic(path, bad_step);
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": global_step: found \"x\", expected an integer");
  cpuft::write_file_atomic(path, text.substr(0, text.size() / 2));
  EXPECT_EQ(load_error(dir, d.m(), d.v()).rfind(path + ": not valid JSON at byte ", 0), 0u);
  cpuft::write_file_atomic(path, "[]");
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": not a JSON object; the checkpoint is corrupt");
  cpuft::write_file_atomic(path, "{\"rng\": " + std::string(100000, '[') + std::string(100000, ']') + "}");
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": nested deeper than 64 levels at byte 72 (line 1, column 72)");
  std::string long_value = text;
  long_value.replace(long_value.find("\"global_step\": 3"), 16, "\"global_step\": \"" + std::string(1 << 20, 'g') + "\"");
  cpuft::write_file_atomic(path, long_value);
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": global_step: found \"" + std::string(44, 'g') + "..., expected an integer");
  // Flag names are the file's: quoted with control bytes escaped and cut short, a NUL in one kept.
  const std::string flags_open = "\"flags\": {";
  const size_t flags_at = text.find(flags_open);
  ASSERT_NE(flags_at, std::string::npos);
  auto with_flag = [&](const std::string& entry) {
    std::string t = text;
    const size_t first = flags_at + flags_open.size();
    t.insert(first, t[first] == '}' ? entry : entry + ",");
    return t;
  };
  cpuft::write_file_atomic(path, with_flag("\"dodel.safet\\nsors\": {\"bytes\": 1}"));
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": flags.dodel.safet\\nsors: found {\"bytes\":1}, expected a string");
  cpuft::write_file_atomic(path, with_flag("\"a\\u0000b\": 2"));
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": flags.a\\x00b: found 2, expected a string");
  cpuft::write_file_atomic(path, with_flag("\"" + std::string(5000, 'k') + "\": 3"));
  EXPECT_EQ(load_error(dir, d.m(), d.v()),
            path + ": flags." + std::string(48, 'k') + "...: found 3, expected a string");
  // trainer_state.json of another step: not the file the checkpoint was written with
  cpuft::write_file_atomic(path, text);
  cpuft::write_file_atomic(dir + "/trainer_state.json", f.trainer_state(4));
  EXPECT_EQ(load_error(dir, d.m(), d.v()).rfind(dir + "/trainer_state.json: xxh64 ", 0), 0u);
  EXPECT_NE(load_error(dir, d.m(), d.v()).find(" (cpuft_state.json); the checkpoint is damaged"), std::string::npos);
}

TEST(Checkpoint, FailedModelWriteLeavesNoCheckpoint) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  auto no_config = [&](const std::string& d) {
    cpuft::write_safetensors(d + "/model.safetensors", {{"qa.bias", {2}, f.b.data()}});
  };
  EXPECT_THROW(cpuft::save_checkpoint(out, 5, f.state(5), no_config, f.m(), f.v(), f.trainer_state(5)),
               cpuft::Error);
  EXPECT_TRUE(fs::is_empty(out));  // neither checkpoint-5 nor its temporary directory
  EXPECT_NO_THROW(f.save(out, 5));
}

TEST(Checkpoint, SavingRemovesLeftoversOfAnInterruptedRun) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  for (const char* d : {"checkpoint-3.tmp-77", "checkpoint-2.old-77", "checkpoint-1.deleting-77", "keep.tmp-1",
                        "checkpoint-x.tmp-1"})
    fs::create_directories(out + "/" + d + "/sub");
  f.save(out, 4);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"checkpoint-4", "checkpoint-x.tmp-1", "keep.tmp-1"}));
}

TEST(Checkpoint, MismatchedMomentListsAreRejected) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  cpuft::NamedArrays short_v = {f.v()[0]};
  EXPECT_THROW(cpuft::save_checkpoint(
                   out, 5, f.state(5), [&](const std::string& d) { f.write_model(d); }, f.m(), short_v,
                   f.trainer_state(5)),
               cpuft::Error);
}

TEST(Checkpoint, LastCheckpointIgnoresTemporaryAndIncompleteDirectories) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  EXPECT_EQ(cpuft::find_last_checkpoint(out), "");
  EXPECT_EQ(cpuft::find_last_checkpoint(out + "/missing"), "");
  f.save(out, 9);
  f.save(out, 10);
  fs::create_directories(out + "/checkpoint-12.tmp-999");  // interrupted save
  fs::create_directories(out + "/checkpoint-11");           // not written by cpuft (no cpuft_state.json)
  fs::create_directories(out + "/checkpoint-abc");
  cpuft::write_file_atomic(out + "/checkpoint-13", "a file");
  EXPECT_EQ(cpuft::find_last_checkpoint(out), out + "/checkpoint-10");  // numeric, not lexical, order
}

// A checkpoint-N/ holding cpuft_state.json counted as complete whatever else it held: two runs in one
// directory left checkpoint-2/ with only that file, and 'last' picked it. Complete now means every
// file cpuft_state.json records is there with its size and checksum.
TEST(Checkpoint, CompleteMeansEveryRecordedFileIsThereAsWritten) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  f.save(out, 2);
  const std::string marker_only = out + "/checkpoint-4";
  fs::create_directories(marker_only);
  fs::copy_file(out + "/checkpoint-2/cpuft_state.json", marker_only + "/cpuft_state.json");
  EXPECT_EQ(cpuft::find_last_checkpoint(out), out + "/checkpoint-2") << "a checkpoint of one file is not the last";
  Dest d;
  EXPECT_EQ(load_error(marker_only, d.m(), d.v()), marker_only + "/config.json: missing; the checkpoint is incomplete");

  const std::string dir = f.save(out, 6);
  const std::string model = dir + "/model.safetensors";
  const std::string bytes = cpuft::read_file(model);
  cpuft::write_file_atomic(model, bytes.substr(0, bytes.size() - 4));
  EXPECT_EQ(load_error(dir, d.m(), d.v()),
            model + ": " + std::to_string(bytes.size() - 4) + " bytes, expected " + std::to_string(bytes.size()) +
                " (cpuft_state.json); the checkpoint is incomplete");
  EXPECT_EQ(cpuft::find_last_checkpoint(out), out + "/checkpoint-2");
  std::string flipped = bytes;
  flipped[flipped.size() - 1] ^= 1;
  cpuft::write_file_atomic(model, flipped);
  EXPECT_NE(load_error(dir, d.m(), d.v()).find("; the checkpoint is damaged"), std::string::npos);
  cpuft::write_file_atomic(model, bytes);
  EXPECT_EQ(cpuft::find_last_checkpoint(out), dir);
  // The required files must be recorded, and only files of the directory itself.
  const std::string path = dir + "/cpuft_state.json";
  const std::string text = cpuft::read_file(path);
  std::string unrecorded = text;
  unrecorded.replace(unrecorded.find("\"model.safetensors\""), 19, "\"other.safetensors\"");
  cpuft::write_file_atomic(path, unrecorded);
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": files: no entry for model.safetensors; the checkpoint is incomplete");
  std::string outside = text;
  outside.replace(outside.find("\"model.safetensors\""), 19, "\"../../etc/passwd\"");
  cpuft::write_file_atomic(path, outside);
  EXPECT_EQ(load_error(dir, d.m(), d.v()), path + ": files: \"../../etc/passwd\" is not a file name of this directory");
  cpuft::write_file_atomic(path, text);
}

TEST(Checkpoint, RotationDeletesOldestButKeepsTheResumedOne) {
  Fixture f;
  std::string out = cpuft_test::temp_dir_until_exit();
  for (int step = 1; step <= 5; ++step) f.save(out, step);
  cpuft::rotate_checkpoints(out, 2, {out + "/checkpoint-1"});
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(out)) left.push_back(e.path().filename().string());
  std::sort(left.begin(), left.end());
  EXPECT_EQ(left, (std::vector<std::string>{"checkpoint-1", "checkpoint-5"}));
  cpuft::rotate_checkpoints(out, 1, {});
  EXPECT_EQ(cpuft::find_last_checkpoint(out), out + "/checkpoint-5");
  EXPECT_FALSE(fs::exists(out + "/checkpoint-1"));
  EXPECT_THROW(cpuft::rotate_checkpoints(out, 0, {}), cpuft::Error);
}

TEST(Checkpoint, ResumeResolutionFollowsRunQa) {
  Fixture f;
  cpuft::TrainArgs a;
  a.do_train = true;
  a.output_dir = cpuft_test::temp_dir_until_exit();
  EXPECT_EQ(cpuft::resolve_resume_checkpoint(a), "");  // empty output_dir: start afresh
  a.resume_from_checkpoint = "last";
  EXPECT_THROW(cpuft::resolve_resume_checkpoint(a), cpuft::Error);
  cpuft::write_file_atomic(a.output_dir + "/notes.txt", "x");
  a.resume_from_checkpoint.clear();
  try {
    cpuft::resolve_resume_checkpoint(a);
    FAIL();
  } catch (const cpuft::Error& e) {
    EXPECT_NE(std::string(e.what()).find("use --overwrite_output_dir"), std::string::npos);
  }
  a.overwrite_output_dir = true;
  EXPECT_EQ(cpuft::resolve_resume_checkpoint(a), "");
  a.overwrite_output_dir = false;
  f.save(a.output_dir, 6);
  EXPECT_EQ(cpuft::resolve_resume_checkpoint(a), a.output_dir + "/checkpoint-6");  // detected automatically
  a.resume_from_checkpoint = "last";
  EXPECT_EQ(cpuft::resolve_resume_checkpoint(a), a.output_dir + "/checkpoint-6");
  a.resume_from_checkpoint = a.output_dir + "/notes.txt";
  EXPECT_THROW(cpuft::resolve_resume_checkpoint(a), cpuft::Error);
  // A checkpoint that is not complete is never the last one.
  fs::remove(a.output_dir + "/checkpoint-6/optimizer.safetensors");
  a.resume_from_checkpoint = "last";
  EXPECT_THROW(cpuft::resolve_resume_checkpoint(a), cpuft::Error);
}

