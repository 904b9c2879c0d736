package loop

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/internal/strictjson"
)

// The file.
const (
	// FileName is the loop's file in the state folder.
	FileName = "loop.json"
	// MaxFileBytes bounds the file: 32 members take a few KiB.
	MaxFileBytes = 256 << 10
	// formatVersion is the file format this package reads and writes.
	formatVersion = 1
)

// Robot colours a file may give the robot (JiboInfo.color).
var robotColors = []string{"", "BLACK", "WHITE"}

// FileError is a loop file that cannot be used: unreadable, not JSON, or
// breaking a rule. The file is left as it is.
type FileError struct {
	Path string
	Err  error
}

func (e *FileError) Error() string {
	return fmt.Sprintf("loop file %s: %v (fix it, restore a backup or move it aside; until then the loop is empty and cannot be changed)", e.Path, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// fileData is the file: the loop with the robot's identity.
type fileData struct {
	// Version is formatVersion.
	Version int `json:"version"`
	// LoopID is the loop's id (LoopID of protocol.Loop).
	LoopID string `json:"loopId"`
	// Jibo is the robot itself.
	Jibo robotData `json:"jibo"`
	// Owner is the owner's id: one of Members', "" when there are none.
	Owner string `json:"owner"`
	// Members are the people, in the order they were added.
	Members []Member `json:"members"`
}

// robotData is the robot's own entry (protocol.JiboInfo).
type robotData struct {
	ID string `json:"id"`
	// Color is "BLACK", "WHITE" or "" (unknown).
	Color string `json:"color,omitempty"`
	// Birthdate is the day the loop was first made, YYYY-MM-DD: the
	// robot's birthday (jibo.age, jibo.isBirthday).
	Birthdate string `json:"birthdate,omitempty"`
}

// fresh is a new loop: a new identity and nobody in it.
func fresh(now time.Time) fileData {
	jibo := newID("jibo-")
	return fileData{Version: formatVersion, LoopID: newID("loop-", jibo),
		Jibo: robotData{ID: jibo, Birthdate: now.Format(DateLayout)}, Members: []Member{}}
}

// clone is a deep copy.
func (d fileData) clone() fileData {
	d.Members = slices.Clone(d.Members)
	if d.Members == nil {
		d.Members = []Member{}
	}
	return d
}

// equal reports whether two loops are the same.
func (d fileData) equal(o fileData) bool {
	return d.Version == o.Version && d.LoopID == o.LoopID && d.Jibo == o.Jibo && d.Owner == o.Owner &&
		slices.Equal(d.Members, o.Members)
}

// clean checks every rule of the file and returns it normalised (see
// Member.clean). now bounds the dates.
func (d fileData) clean(now time.Time) (fileData, error) {
	d = d.clone()
	if d.Version != formatVersion {
		if d.Version > formatVersion {
			return d, fmt.Errorf("%w: format version %d is from a newer jibod; this one reads version %d", ErrInvalid, d.Version, formatVersion)
		}
		return d, fmt.Errorf("%w: format version %d: want %d", ErrInvalid, d.Version, formatVersion)
	}
	if err := checkID("loop id", d.LoopID); err != nil {
		return d, err
	}
	if err := checkID("robot id", d.Jibo.ID); err != nil {
		return d, err
	}
	if !slices.Contains(robotColors, d.Jibo.Color) {
		return d, fmt.Errorf("%w: robot color %q: want BLACK or WHITE", ErrInvalid, d.Jibo.Color)
	}
	var err error
	if d.Jibo.Birthdate, err = cleanDate("robot birthdate", d.Jibo.Birthdate, now); err != nil {
		return d, err
	}
	if len(d.Members) > MaxMembers {
		return d, fmt.Errorf("%w: %d members, more than %d", ErrInvalid, len(d.Members), MaxMembers)
	}
	ids := map[string]bool{d.Jibo.ID: true}
	for i, m := range d.Members {
		if err := checkID("id", m.ID); err != nil {
			return d, fmt.Errorf("member %d: %w", i+1, err)
		}
		if ids[m.ID] {
			return d, fmt.Errorf("member %d: %w: id %s is taken", i+1, ErrInvalid, m.ID)
		}
		ids[m.ID] = true
		if d.Members[i], err = m.clean(now); err != nil {
			return d, fmt.Errorf("member %d (%s): %w", i+1, m.ID, err)
		}
	}
	switch {
	case len(d.Members) == 0 && d.Owner != "":
		return d, fmt.Errorf("%w: owner %s but no members", ErrInvalid, d.Owner)
	case len(d.Members) > 0 && d.Owner == "":
		return d, fmt.Errorf("%w: no owner: one member must be the owner", ErrInvalid)
	case d.Owner != "" && (!ids[d.Owner] || d.Owner == d.Jibo.ID):
		return d, fmt.Errorf("%w: owner %s is not a member", ErrInvalid, d.Owner)
	}
	return d, nil
}

// protocol is the loop as skills get it (jibo.md §2.2 runtime.loop),
// birthdates in loc.
func (d fileData) protocol(loc *time.Location) protocol.Loop {
	l := protocol.Loop{
		Users: make([]protocol.LooperInfo, 0, len(d.Members)),
		Jibo: protocol.JiboInfo{ID: d.Jibo.ID, Color: d.Jibo.Color,
			Birthdate: dateMillis(d.Jibo.Birthdate, loc)},
		Owner:  d.Owner,
		LoopID: d.LoopID,
	}
	for _, m := range d.Members {
		l.Users = append(l.Users, protocol.LooperInfo{FirstName: m.FirstName, LastName: m.LastName,
			PhoneticName: m.PhoneticName, Gender: m.Gender, Birthdate: dateMillis(m.Birthdate, loc), ID: m.ID})
	}
	return l
}

// decode parses and checks the file's bytes: unknown members and trailing
// data are refused, so a mistyped hand edit is caught rather than lost.
func decode(b []byte, now time.Time) (fileData, error) {
	var d fileData
	if err := strictjson.CheckMembers(b); err != nil {
		return d, fmt.Errorf("%w: not a loop file: %w", ErrInvalid, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		return d, fmt.Errorf("%w: not a loop file: %w", ErrInvalid, err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return d, fmt.Errorf("%w: not a loop file: data after the loop", ErrInvalid)
	}
	return d.clean(now)
}

// encode is the file's bytes, indented for people who read it.
func (d fileData) encode() ([]byte, error) {
	b, err := json.MarshalIndent(d.clone(), "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encoding the loop: %w", err)
	}
	return append(b, '\n'), nil
}

// readFile reads the file open as f, bounded.
func readFile(f *os.File) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrInvalid, MaxFileBytes)
	}
	return b, nil
}

// writeAtomic replaces path with b: a temporary file beside it, synced,
// then renamed over it, so a reader or a crash sees the old file or the
// new one, never part of one. beforeRename, if set, runs between the two
// (tests use it to fail there).
func writeAtomic(path string, b []byte, beforeRename func(tmp string) error) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp") // 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // fails harmlessly after the rename; cleans up a failure
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if beforeRename != nil {
		if err := beforeRename(tmp.Name()); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	// The rename itself is durable only once the folder is synced; a
	// filesystem that cannot sync folders still did the rename.
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
	return nil
}

// sameVersion reports whether two stats are of the same file as it was:
// the same inode (a rename makes a new one), size and modification time.
func sameVersion(a, b os.FileInfo) bool {
	return a != nil && b != nil && os.SameFile(a, b) && a.Size() == b.Size() && a.ModTime().Equal(b.ModTime())
}
