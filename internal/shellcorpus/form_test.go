package shellcorpus

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		script string
		want   Form
	}{
		// Commands that write no file.
		{"ls -la", FormNone},
		{"python reproduce.py 2>&1", FormNone},
		{"grep -rn foo . > /dev/null 2>&1", FormNone},
		{"echo hello", FormNone},
		{"sed -n '1,5p' f.py", FormNone},
		{"cat a.py | head -n 20", FormNone},

		// One file overwritten with bytes the command holds.
		{"cat <<'EOF' > repro.py\nprint(1)\nEOF", FormOverwrite},
		{"cat > repro.py << 'EOF'\n# a comment inside the document\nEOF", FormOverwrite},
		{"echo hi > f.txt", FormOverwrite},
		{"echo hi >| f.txt", FormOverwrite},
		{"printf 'a\\n' > f", FormOverwrite},
		{"cd /testbed && cat > x.py <<EOF\nx\nEOF", FormOverwrite},
		{"tee f <<'EOF'\nx\nEOF", FormOverwrite},
		{"echo x | tee f", FormOverwrite},

		// sed -i, alone or with other commands.
		{"sed -i 's/a/b/' f.py", FormSedInPlace},
		{"sed -i.bak -e 's/a/b/' -e '3d' f", FormSedInPlace},
		{"sed -i '12d' f.py && python f.py", FormSedInPlace},
		{"sed --in-place=.orig '/pat/a text' f", FormSedInPlace},

		// One overwrite among other commands.
		{"cat <<'EOF' > repro.py\nprint(1)\nEOF\npython3 repro.py", FormThenOther},
		{"echo x > f && pytest f", FormThenOther},
		{"if true; then echo x > f; fi", FormThenOther},
		{"X=1 && echo x > f", FormThenOther},

		// Appends.
		{"cat <<'EOF' >> f\nx\nEOF", FormAppend},
		{"echo x >> f", FormAppend},
		{"tee -a f <<'EOF'\nx\nEOF", FormAppend},
		{"printf 'x\\n' | tee -a f > /dev/null", FormAppend},

		// Several files.
		{"cat > a <<EOF\na\nEOF\ncat > b <<EOF\nb\nEOF", FormSeveral},
		{"touch a b", FormSeveral},
		{"echo a > x; sed -i 's/a/b/' y", FormSeveral},
		{"sed -i 's/a/b/' x y", FormSeveral},

		// mkdir -p, a comment, touch.
		{"mkdir -p d && cat > d/f <<'EOF'\nx\nEOF", FormSetup},
		{"# write the file\ncat > f <<'EOF'\nx\nEOF", FormSetup},
		{"touch f", FormSetup},

		// Bytes that do not follow from the command.
		{"cp a b", FormOther},
		{"mv -f a.py b.py", FormOther},
		{"python reproduce.py > out.txt", FormOther},
		{"python -c \"open('f','w').write('x')\"", FormOther},
		{"python3 - <<'EOF'\nfrom pathlib import Path\nPath('f').write_text('x')\nEOF", FormOther},
		{"echo x 2> err.log", FormOther},
		{"cat a > b", FormOther},
		{"ls | tee out.txt", FormOther},
		{"perl -pi -e 's/a/b/' f", FormOther},
		{"git diff > fix.patch && echo done", FormOther},
		{"dd if=/dev/zero of=blob bs=1 count=1", FormOther},
		{"cat <<'EOF' > f.patch\n--- f\n+++ f\nEOF\npatch -p0 < f.patch", FormOther},

		// A writer without its file still runs.
		{"echo x > f && cp --help", FormThenOther},
		{"echo x > f && dd --version", FormThenOther},
	}
	for _, tt := range tests {
		got, err := Classify(tt.script)
		if !assert.NoError(t, err, "Classify(%q)", tt.script) {
			continue
		}
		assert.Equal(t, tt.want, got, "Classify(%q) = %v, want %v", tt.script, got, tt.want)
	}
}

func TestClassifyRefusesWhatBashRefuses(t *testing.T) {
	for _, script := range []string{"echo (", "if then fi", "cat > f <<EOF\nx\nEOF\n)"} {
		_, err := Classify(script)
		assert.Error(t, err, "Classify(%q): no error", script)
	}
}
