package invoke

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func lines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// The file keeps the newest Keep records once it grows past 2×Keep.
func TestFileCompaction(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "runs.jsonl")
	f, err := OpenFile(path, FileOptions{Keep: 5, Logger: quiet})
	require.NoError(t, err)
	for i := 1; i <= 10; i++ {
		f.Record(rec(i, "jibo/timer", OutcomeOK))
	}
	assert.Len(t, lines(t, path), 10, "not yet past 2×Keep")
	f.Record(rec(11, "jibo/timer", OutcomeOK))
	assert.Len(t, lines(t, path), 5, "compacted to Keep")
	for i := 12; i <= 23; i++ {
		f.Record(rec(i, "jibo/timer", OutcomeOK))
	}
	require.NoError(t, f.Err())
	require.NoError(t, f.Close())
	f.Record(rec(24, "jibo/timer", OutcomeOK)) // dropped after Close

	recs, err := ReadFile(path, Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mid-23", "mid-22", "mid-21", "mid-20", "mid-19"}, ids(recs))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o644), info.Mode().Perm())
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), "*.tmp"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary files left")
}

// A crash can leave a torn last line: readers skip it, and opening the
// file again cuts it off so the next record is a line of its own.
func TestFileTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	f, err := OpenFile(path, FileOptions{Keep: 10, Logger: quiet})
	require.NoError(t, err)
	for i := 1; i <= 3; i++ {
		f.Record(rec(i, "jibo/timer", OutcomeOK))
	}
	require.NoError(t, f.Close())
	full, err := os.ReadFile(path)
	require.NoError(t, err)
	last := bytes.LastIndexByte(full[:len(full)-1], '\n')
	torn := full[:last+1+20] // the third line, cut mid-way
	require.NoError(t, os.WriteFile(path, torn, 0o644))

	recs, err := ReadFile(path, Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mid-2", "mid-1"}, ids(recs), "the torn line is skipped")

	f, err = OpenFile(path, FileOptions{Keep: 10, Logger: quiet})
	require.NoError(t, err)
	f.Record(rec(4, "jibo/clock", OutcomePanic))
	require.NoError(t, f.Close())
	assert.Len(t, lines(t, path), 3)
	recs, err = ReadFile(path, Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mid-4", "mid-2", "mid-1"}, ids(recs))
}

// Lines that are not records (garbage, over-long lines) are skipped by
// readers and dropped by compaction; filters and limits apply.
func TestReadFileSkipsAndFilters(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	var b bytes.Buffer
	for i, o := range []Outcome{OutcomeOK, OutcomeTimeout, OutcomeOK, OutcomePanic, OutcomeOK} {
		line, err := rec(i+1, []string{"jibo/timer", "jibo/clock"}[i%2], o).MarshalJSON()
		require.NoError(t, err)
		b.Write(line)
		b.WriteByte('\n')
		if i == 1 {
			b.WriteString("not json\n")
			b.WriteString(`{"time":"` + strings.Repeat("x", 2*MaxLineBytes) + "\"}\n")
			b.WriteString("{\"truncated\": \n")
		}
	}
	require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))

	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{}, []string{"mid-5", "mid-4", "mid-3", "mid-2", "mid-1"}},
		{Filter{Limit: 2}, []string{"mid-5", "mid-4"}},
		{Filter{Limit: 10}, []string{"mid-5", "mid-4", "mid-3", "mid-2", "mid-1"}},
		{Filter{Skill: "jibo.clock"}, []string{"mid-4", "mid-2"}},
		{Filter{Outcome: OutcomeOK, Limit: 2}, []string{"mid-5", "mid-3"}},
		{Filter{Skill: "jibo/timer", Outcome: OutcomeOK, Limit: 1}, []string{"mid-5"}},
	}
	for _, tt := range tests {
		recs, err := ReadFile(path, tt.f)
		require.NoError(t, err)
		assert.Equal(t, tt.want, ids(recs), "%+v", tt.f)
	}

	// Reopening counts only complete lines; compaction drops what is not a record.
	f, err := OpenFile(path, FileOptions{Keep: 2, Logger: quiet})
	require.NoError(t, err, "8 lines > 2×2: compacted on open")
	require.NoError(t, f.Close())
	assert.Len(t, lines(t, path), 2)

	recs, err := ReadFile(filepath.Join(t.TempDir(), "missing.jsonl"), Filter{})
	require.NoError(t, err, "no file, no records")
	assert.Empty(t, recs)
}

func TestFileLongFieldsStayOneLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	f, err := OpenFile(path, FileOptions{Keep: 10, Logger: quiet})
	require.NoError(t, err)
	r := rec(1, "jibo/timer", OutcomeFailed)
	r.Error = strings.Repeat("\x01", 10*MaxRecordError) // escapes to six bytes each
	r.Intent = strings.Repeat("<", 5*MaxRecordField)
	f.Record(r)
	require.NoError(t, f.Close())
	l := lines(t, path)
	require.Len(t, l, 1)
	assert.Less(t, len(l[0]), MaxLineBytes)
	recs, err := ReadFile(path, Filter{})
	require.NoError(t, err)
	require.Len(t, recs, 1)
	assert.True(t, strings.HasSuffix(recs[0].Error, "…"))
}

func TestOpenFileErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := OpenFile(filepath.Join(dir, "runs.jsonl"), FileOptions{Keep: MaxFileKeep + 1})
	assert.ErrorContains(t, err, "keep")
	_, err = OpenFile(filepath.Join(dir, "runs.jsonl"), FileOptions{Keep: -1})
	assert.Error(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "file"), nil, 0o644))
	_, err = OpenFile(filepath.Join(dir, "file", "runs.jsonl"), FileOptions{})
	assert.Error(t, err, "its directory is a file")
}

// A write that fails is logged and kept for Err; the recorder recovers.
func TestFileWriteFailure(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	f, err := OpenFile(path, FileOptions{Keep: 10, Logger: quiet})
	require.NoError(t, err)
	good := f.f
	bad, err := os.Open(path) // read-only: writes fail
	require.NoError(t, err)
	f.f = bad
	f.Record(rec(1, "jibo/timer", OutcomeOK))
	assert.Error(t, f.Err())
	f.f = good
	bad.Close()
	f.Record(rec(2, "jibo/timer", OutcomeOK))
	assert.NoError(t, f.Err())
	require.NoError(t, f.Close())
	recs, err := ReadFile(path, Filter{})
	require.NoError(t, err)
	assert.Equal(t, []string{"mid-2"}, ids(recs))
}

// A reader in another goroutine (standing in for `jibod skills runs` in
// another process) reads while the writer appends and compacts: it never
// fails and only ever sees whole records.
func TestFileReadWhileWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	f, err := OpenFile(path, FileOptions{Keep: 7, Logger: quiet})
	require.NoError(t, err)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			recs, err := ReadFile(path, Filter{})
			if err != nil {
				t.Errorf("reading while writing: %v", err)
				return
			}
			for _, r := range recs {
				if r.Skill != "jibo/timer" || !strings.HasPrefix(r.RequestID, "mid-") {
					t.Errorf("partial record %+v", r)
				}
			}
		}
	})
	for i := range 300 {
		f.Record(rec(i, "jibo/timer", OutcomeOK))
	}
	close(stop)
	wg.Wait()
	require.NoError(t, f.Close())
	recs, err := ReadFile(path, Filter{})
	require.NoError(t, err)
	// Compacted to 7 at the 15th record and every 8 after: 295, then 5 more.
	require.Len(t, recs, 12)
	assert.Equal(t, "mid-299", recs[0].RequestID)
	assert.Equal(t, "mid-288", recs[11].RequestID)
}
