// Package testenv says whether this machine has what a test needs beyond Go (today: an
// installed locale). Where it has not, the test skips and says why, unless CI, which installs
// it, asks for it with its REQUIRE_* variable: then the absence is a failure.
package testenv

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// LocalesEnv names the variable that turns a missing locale into a failure (.ci/run sets it
// after generating the locales with localedef).
const LocalesEnv = "REQUIRE_LOCALES"

// Locale skips t where the locale l ("en_US.UTF-8") is not installed, as `locale -a` lists
// them, and fails it instead when LocalesEnv is 1. glibc runs a locale it does not have as C,
// so a test of what a locale changes would otherwise fail, or pass for the wrong reason.
func Locale(t testing.TB, l string) {
	t.Helper()
	if Installed(l) {
		return
	}
	lang, _, _ := strings.Cut(l, ".")
	why := "locale " + l + " is not installed (localedef -i " + lang + " -f UTF-8 " + l + ")"
	if os.Getenv(LocalesEnv) == "1" {
		t.Fatalf("%s, and %s=1", why, LocalesEnv)
	}
	t.Skip(why + "; " + LocalesEnv + "=1 makes this a failure")
}

// Installed reports whether `locale -a` lists l, comparing names as glibc does: case and the
// codeset's '-' aside ("en_US.UTF-8" is "en_US.utf8").
func Installed(l string) bool {
	out, _ := exec.Command("locale", "-a").Output()
	for _, have := range strings.Fields(string(out)) {
		if normal(have) == normal(l) {
			return true
		}
	}
	return false
}

func normal(l string) string { return strings.ToLower(strings.ReplaceAll(l, "-", "")) }
