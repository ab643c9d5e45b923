package filters

import "errors"

// Disk is the one way filters read the filesystem, so that a trace can carry
// what they read: the live proxy reads the OS and, when it records, writes
// each answer into the trace; a replay answers from the trace's records, and
// reads the replaying machine's disk only for a question the trace does not
// answer (a trace recorded before traces carried reads, or with other
// filters), saying so. README.md ("Trace format") documents the records.
//
// A filter asks through Message.ReadDisk, with the function that reads the
// OS; the answer is a JSON value that function made, and the filter decodes
// it. A failed read is an error whose message the trace keeps.
type Disk interface {
	Read(m *Message, q DiskRead, read func() ([]byte, error)) ([]byte, error)
}

// DiskRead is one question a filter asks of the disk. Two questions are the
// same when all their fields are equal: Args holds everything besides Path
// that the answer depends on (the filter's settings, the session's
// directory), so that a replay with other settings does not take an answer
// to another question.
type DiskRead struct {
	// Kind says what is read: "script-edits" (shell-to-patch: the files a
	// shell script writes, their text before and after, and the
	// directories on its way; "write-target" in traces of earlier
	// releases), "read-back" (shell-to-patch: a shown file after its
	// command ran) or
	// "saved-output" (expand-persisted-output: the file an agent saved a
	// tool's whole output to) or "changes" (show-changes: the files under a
	// session's directory a command's run changed, with their text).
	Kind string
	Path string // the file read or checked, absolute
	Args []byte // a JSON object, or nil
}

// ReadDisk asks m's Disk the question q; read reads the OS. Without a Disk
// (a message a test made) it reads the OS.
func (m *Message) ReadDisk(q DiskRead, read func() ([]byte, error)) ([]byte, error) {
	if m == nil || m.Disk == nil {
		return read()
	}
	return m.Disk.Read(m, q, read)
}

// ErrNotRead is what a filter's read function returns for a read it does
// not make where it runs: a replay does not read back what a command wrote
// (the command did not run there), but takes the answer from the trace when
// the trace holds one. A Disk does not report it as missing.
var ErrNotRead = errors.New("not read: the command did not run here")
