// A scratch directory for one test: created unique under the system temporary directory (mkdtemp, so
// parallel test processes never share one), removed with everything in it when the object goes out of
// scope, whether the test passed or failed. Directories a test made read-only are made writable again
// so that they can be removed.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace cpuft_test {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix = "cpuft-test") {
    std::string templ = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(templ.data()) == nullptr) throw std::runtime_error("mkdtemp " + templ + " failed");
    path_ = templ;
  }
  ~TempDir() {
    if (!kept_) remove(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  // path()/name
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  // Leaves the directory in place when the object goes away (e.g. the evidence of a failed test).
  void keep() { kept_ = true; }

  // Removes `dir` and its contents; never throws (it runs in destructors).
  static void remove(const std::string& dir) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (fs::remove_all(dir, ec) != static_cast<std::uintmax_t>(-1) && !ec) return;
    // A directory without write permission keeps its entries: give every directory back to its owner
    // (links are not followed) and try once more.
    fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add, ec);
    for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      std::error_code ignored;
      if (it->is_directory(ignored) && !it->is_symlink(ignored))
        fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ignored);
    }
    fs::remove_all(dir, ec);
  }

 private:
  std::string path_;
  bool kept_ = false;
};

// For helpers that hand out plain paths: a TempDir that lasts until the test program exits. ctest runs
// every test in a process of its own, so for it that is the end of the test.
inline std::string temp_dir_until_exit(const std::string& prefix = "cpuft-test") {
  static std::vector<std::unique_ptr<TempDir>> dirs;  // destroyed, removing the directories, at exit
  dirs.push_back(std::make_unique<TempDir>(prefix));
  return dirs.back()->path();
}

}  // namespace cpuft_test
