// Package installed keeps a running robot's WebAssembly skills in step with
// its state folder: it loads the packages installed in <state>/skills/ at
// start, and when asked to (Sync: `jibod skills install` and `uninstall`
// ask through the shell's `skills sync`) it loads a package installed
// since, replaces one installed again, and unloads one uninstalled, while
// the robot runs. The state folder is the authority: Sync only makes what
// runs match what is there.
//
// A package that fails to load is reported and left out (an older version
// already running stays); the robot carries on. An update unloads the old
// version once the requests using it are done, ending its conversations,
// then loads the new one, whose compiled module is already in the compile
// cache (the install compiled it); if the new one's intents are refused,
// the old one is put back.
package installed

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/protocol"
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/kv"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// Where installed skills live in the state folder.
const (
	// SkillsDirName holds one folder per installed skill package.
	SkillsDirName = "skills"
	// CacheDirName keeps compiled modules across restarts.
	CacheDirName = "wasm-cache"
	// DataFileName is the skills' key-value storage.
	DataFileName = "skilldata.db"
)

// Host is where the skills run: *skill.Host.
type Host interface {
	// Add adds a skill whose intents the host registers later, with
	// everyone's (at start).
	Add(s skill.Skill) error
	// Install adds a skill and registers its intents at once.
	Install(ctx context.Context, s skill.Skill) error
	// Remove unloads a skill once the requests using it are done and
	// deregisters its intents.
	Remove(ctx context.Context, id string) error
}

// Config configures Skills.
type Config struct {
	// StateDir is the robot's state folder; it holds SkillsDirName,
	// CacheDirName and DataFileName.
	StateDir string
	// Host runs the skills.
	Host Host
	// Check, when set, runs on each package before its module is loaded
	// (the robot registers its intents with engines of its own there, so
	// one the engines refuse leaves the skill out, not the robot down).
	Check func(context.Context, *skillpkg.Package) error
	// Offline is the offline switch at start: while it is on, fetches fail.
	Offline bool
	// State, Now: see wasm.Config.
	State func() protocol.RuntimeContext
	Now   func() time.Time
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Problem is an installed package the robot left out, and why.
type Problem struct {
	ID    string // "" when the package could not be read
	Dir   string
	Error string
}

// What a Sync did to one skill.
const (
	Loaded    = "loaded"    // installed since: now running
	Updated   = "updated"   // installed again: the new copy runs
	Unloaded  = "unloaded"  // uninstalled: no longer runs
	Unchanged = "unchanged" // running as installed
	NotLoaded = "not loaded"
	Absent    = "not installed"
	Purged    = "purged" // its stored data was deleted
)

// Change is what a Sync did to one skill.
type Change struct {
	// ID is the skill's manifest id.
	ID string `json:"id"`
	// Change is one of the constants above.
	Change string `json:"change"`
	// Version is the version running now, "" for none.
	Version string `json:"version,omitempty"`
	// Previous is the version that ran before an update.
	Previous string `json:"previous,omitempty"`
	// Error says why a package was not loaded.
	Error string `json:"error,omitempty"`
}

// running is a loaded skill and the copy of the package it was loaded from.
type running struct {
	skill *wasm.Skill
	stamp skillpkg.Stamp
}

// Skills are the installed WebAssembly skills of a robot. Close it when
// done.
type Skills struct {
	cfg     Config
	log     *slog.Logger
	offline atomic.Bool

	// mu is held by Sync and Close; what it guards changes only there.
	mu        sync.Mutex
	engine    *wasm.Engine // nil until a skill is loaded
	storage   *kv.Store    // nil until a skill is loaded or data is purged
	running   map[string]running
	notLoaded map[string]Problem // by id, or by folder when unread
	closed    bool
	// stop ends a Sync in progress when the robot closes.
	base context.Context
	stop context.CancelFunc
}

// Open loads every package installed in the state folder into the host
// (with Host.Add: the host registers their intents with everyone's),
// several at once, and deletes the data of skills uninstalled with purging
// while the robot was running. A package that cannot be loaded is logged
// and kept for NotLoaded; the others load.
func Open(ctx context.Context, cfg Config) (*Skills, error) {
	if cfg.StateDir == "" {
		return nil, errors.New("installed skills: no state folder")
	}
	if cfg.Host == nil {
		return nil, errors.New("installed skills: no host")
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	s := &Skills{cfg: cfg, log: log, running: map[string]running{},
		notLoaded: map[string]Problem{}}
	s.offline.Store(cfg.Offline)
	s.base, s.stop = context.WithCancel(context.WithoutCancel(ctx))
	entries, err := skillpkg.List(s.skillsDir())
	if err != nil {
		return nil, err
	}
	var dirs []string
	for _, e := range entries {
		if e.Err != nil {
			s.leftOut(Problem{Dir: e.Dir, Error: e.Err.Error()})
			continue
		}
		dirs = append(dirs, e.Dir)
	}
	if len(dirs) > 0 {
		if err := s.openEngine(); err != nil {
			return nil, err
		}
		for _, l := range s.engine.LoadAll(ctx, dirs, s.cfg.Check) {
			if l.Err == nil {
				if err := cfg.Host.Add(l.Skill); err != nil {
					l.Err = errors.Join(err, l.Skill.Close(ctx))
				}
			}
			if l.Err != nil {
				s.leftOut(Problem{ID: l.ID, Dir: l.Dir, Error: l.Err.Error()})
				continue
			}
			s.running[l.ID] = running{skill: l.Skill, stamp: l.Stamp}
		}
	}
	if _, err := s.purge(); err != nil {
		log.Warn("deleting the data of uninstalled skills", "err", err)
	}
	return s, nil
}

func (s *Skills) skillsDir() string { return filepath.Join(s.cfg.StateDir, SkillsDirName) }

// openEngine opens the storage and the engine, once.
func (s *Skills) openEngine() error {
	if s.engine != nil {
		return nil
	}
	if err := s.openStorage(); err != nil {
		return err
	}
	e, err := wasm.New(wasm.Config{CacheDir: filepath.Join(s.cfg.StateDir, CacheDirName), Storage: s.storage,
		Offline: s.offline.Load, State: s.cfg.State, Now: s.cfg.Now, Logger: s.cfg.Logger})
	if err != nil {
		return err
	}
	s.engine = e
	return nil
}

func (s *Skills) openStorage() error {
	if s.storage != nil {
		return nil
	}
	st, err := kv.Open(filepath.Join(s.cfg.StateDir, DataFileName), kv.Options{Logger: s.cfg.Logger})
	if err != nil {
		return err
	}
	s.storage = st
	return nil
}

func (s *Skills) leftOut(p Problem) {
	s.log.Error("installed skill not loaded", "skill_id", p.ID, "dir", p.Dir, "err", p.Error)
	key := p.ID
	if key == "" {
		key = p.Dir
	}
	s.notLoaded[key] = p
}

// SetOffline sets the offline switch: while it is on, fetches fail.
func (s *Skills) SetOffline(on bool) {
	if s != nil {
		s.offline.Store(on)
	}
}

// NotLoaded lists the installed packages left out, by id (or folder).
func (s *Skills) NotLoaded() []Problem {
	if s == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Problem, 0, len(s.notLoaded))
	for _, p := range s.notLoaded {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Dir < out[j].Dir
	})
	return out
}

// StateDir is the state folder the skills are installed in.
func (s *Skills) StateDir() string { return s.cfg.StateDir }

// Sync makes the skills ids (manifest ids; none means every skill
// installed, running or left out) run as they are installed now, and
// deletes the data of skills uninstalled with purging. It returns what it
// did to each, sorted by id; a skill that could not be loaded is a Change
// with its error, not an error of Sync. Syncs run one at a time.
func (s *Skills) Sync(ctx context.Context, ids ...string) ([]Change, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("installed skills: closed")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.base, cancel)()

	installed := map[string]string{} // id → folder
	broken := map[string]error{}     // folder → why it does not read
	entries, err := skillpkg.List(s.skillsDir())
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Err == nil {
			installed[e.Manifest.ID] = e.Dir
		} else {
			broken[e.Dir] = e.Err
		}
	}
	seen := map[string]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	if len(ids) == 0 {
		for id := range installed {
			seen[id] = true
		}
		for id := range s.running {
			seen[id] = true
		}
		for _, p := range s.notLoaded {
			if p.ID != "" {
				seen[p.ID] = true
			}
		}
	}
	ids = make([]string, 0, len(seen))
	for id := range seen {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var out []Change
	for _, id := range ids {
		dir, ok := installed[id]
		if !ok {
			dir = filepath.Join(s.skillsDir(), skillpkg.DirName(id))
		}
		out = append(out, s.syncOne(ctx, id, dir, ok, broken[dir]))
	}
	purged, err := s.purge()
	for _, id := range purged {
		out = append(out, Change{ID: id, Change: Purged})
	}
	return out, err
}

// syncOne makes skill id run as installed in dir (or not at all when it is
// not installed; unread says why a folder of that name does not read).
func (s *Skills) syncOne(ctx context.Context, id, dir string, isInstalled bool, unread error) Change {
	cur, isRunning := s.running[id]
	was := ""
	if isRunning {
		was = cur.skill.Manifest().Version
	}
	// fail leaves the skill out, or the version running on, and says why.
	fail := func(err error) Change {
		c := Change{ID: id, Change: NotLoaded, Version: was, Error: err.Error()}
		if was != "" {
			c.Error += " (version " + was + " keeps running)"
		}
		s.leftOut(Problem{ID: id, Dir: dir, Error: c.Error})
		return c
	}
	switch {
	case !isInstalled && unread != nil:
		return fail(unread)
	case !isInstalled:
		delete(s.notLoaded, id)
		delete(s.notLoaded, dir)
		if !isRunning {
			return Change{ID: id, Change: Absent}
		}
		if err := s.unload(ctx, id, cur); err != nil {
			return fail(fmt.Errorf("unloading it: %w", err))
		}
		return Change{ID: id, Change: Unloaded, Previous: was}
	case isRunning:
		if st, err := skillpkg.StampOf(dir); err == nil && st.Same(cur.stamp) {
			return Change{ID: id, Change: Unchanged, Version: was}
		}
	}
	next, stamp, err := s.load(ctx, dir)
	if err != nil {
		return fail(err)
	}
	if isRunning {
		if err := s.cfg.Host.Remove(ctx, id); err != nil {
			_ = next.Close(context.WithoutCancel(ctx))
			return fail(fmt.Errorf("unloading the running version: %w", err))
		}
	}
	if err := s.cfg.Host.Install(ctx, next); err != nil {
		_ = next.Close(context.WithoutCancel(ctx))
		if isRunning {
			if rerr := s.cfg.Host.Install(context.WithoutCancel(ctx), cur.skill); rerr != nil {
				delete(s.running, id)
				_ = cur.skill.Close(context.WithoutCancel(ctx))
				was = ""
				err = fmt.Errorf("%w; and the running version could not be put back: %w", err, rerr)
			}
		}
		return fail(err)
	}
	if isRunning {
		// Remove waited for the old version's requests: nothing calls it now.
		if err := cur.skill.Close(ctx); err != nil {
			s.log.Warn("closing the replaced version", "skill_id", id, "err", err)
		}
	}
	delete(s.notLoaded, id)
	delete(s.notLoaded, dir)
	s.running[id] = running{skill: next, stamp: stamp}
	c := Change{ID: id, Change: Loaded, Version: next.Manifest().Version}
	if isRunning {
		c.Change, c.Previous = Updated, was
	}
	s.log.Info("installed skill "+c.Change, "skill_id", id, "version", c.Version, "previous", was)
	return c
}

// load reads, checks and loads the package in dir.
func (s *Skills) load(ctx context.Context, dir string) (*wasm.Skill, skillpkg.Stamp, error) {
	p, err := skillpkg.Read(dir)
	if err != nil {
		return nil, skillpkg.Stamp{}, err
	}
	if s.cfg.Check != nil {
		if err := s.cfg.Check(ctx, p); err != nil {
			return nil, skillpkg.Stamp{}, err
		}
	}
	if err := s.openEngine(); err != nil {
		return nil, skillpkg.Stamp{}, err
	}
	sk, err := s.engine.Load(ctx, p)
	if err != nil {
		return nil, skillpkg.Stamp{}, err
	}
	return sk, p.Stamp, nil
}

// unload removes a running skill from the host and closes it.
func (s *Skills) unload(ctx context.Context, id string, r running) error {
	if err := s.cfg.Host.Remove(ctx, id); err != nil {
		return err
	}
	delete(s.running, id)
	if err := r.skill.Close(ctx); err != nil {
		s.log.Warn("closing an uninstalled skill", "skill_id", id, "err", err)
	}
	s.log.Info("installed skill unloaded", "skill_id", id)
	return nil
}

// purge deletes the stored data of every skill marked for purging that is
// neither installed nor running, and clears its note.
func (s *Skills) purge() ([]string, error) {
	ids, err := skillpkg.PendingPurges(s.skillsDir())
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	var done []string
	var errs []error
	for _, id := range ids {
		if _, on := s.running[id]; on || exists(filepath.Join(s.skillsDir(), skillpkg.DirName(id))) {
			errs = append(errs, skillpkg.ClearPurge(s.skillsDir(), id)) // installed again: it keeps its data
			continue
		}
		if err := s.openStorage(); err != nil {
			return done, err
		}
		if err := s.storage.Drop(id); err != nil {
			errs = append(errs, fmt.Errorf("deleting the data of %s: %w", id, err))
			continue
		}
		errs = append(errs, skillpkg.ClearPurge(s.skillsDir(), id))
		s.log.Info("uninstalled skill's data deleted", "skill_id", id)
		done = append(done, id)
	}
	return done, errors.Join(errs...)
}

// Close unloads the skills (after the invoker has stopped calling them)
// and closes their storage; a Sync in progress is stopped first.
func (s *Skills) Close(ctx context.Context) error {
	if s == nil {
		return nil
	}
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	var errs []error
	if s.engine != nil {
		errs = append(errs, s.engine.Close(ctx))
	}
	if s.storage != nil {
		if err := s.storage.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing Wasm skill storage: %w", err))
		}
	}
	return errors.Join(errs...)
}

// exists reports whether something is at path.
func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
