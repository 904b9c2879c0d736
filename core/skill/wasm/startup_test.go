package wasm

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
	"github.com/openjibo/jibod/core/skill/wasm/wasmtest"
)

// forever is a body that loops until the module is stopped.
var forever = []byte{wasmtest.OpLoop, wasmtest.BlockEmpty, wasmtest.OpBr, 0x00, wasmtest.OpEnd}

var (
	abiVersion = wasmtest.Func{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(1)}
	handleOK   = wasmtest.Func{Export: "jibo_handle", Params: []byte{wasmtest.I32}, Results: []byte{wasmtest.I32}, Body: wasmtest.I32Const(0)}
	// loopsInInitialize never returns from _initialize.
	loopsInInitialize = wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{abiVersion, handleOK,
		{Export: "_initialize", Body: forever}}}.Bytes()
	// loopsInVersion never says its ABI version.
	loopsInVersion = wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{handleOK,
		{Export: "jibo_abi_version", Results: []byte{wasmtest.I32}, Body: append(append([]byte{}, forever...), wasmtest.OpUnreachable)}}}.Bytes()
	sound = wasmtest.Raw{MemoryPages: 1, Funcs: []wasmtest.Func{abiVersion, handleOK}}.Bytes()
)

// A module that never finishes starting is stopped at its start-up limit,
// and the load says which export ran over (issue 22 item 4: it held
// `skills install` and the robot's start for two minutes).
func TestStartUpIsBounded(t *testing.T) {
	r := newRig(t, Config{})
	for _, tc := range []struct {
		name   string
		module []byte
		says   string
	}{
		{"_initialize loops", loopsInInitialize, "starting the module: _initialize did not return within 5s, its start-up limit"},
		{"jibo_abi_version loops", loopsInVersion, "asking the module's ABI version: jibo_abi_version did not return within 5s, its start-up limit"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := writePkg(t, hostileManifest(`"timeout": "200ms"`), tc.module)
			s, err := r.e.Load(context.Background(), p)
			assert.Nil(t, s)
			require.Error(t, err)
			assert.ErrorIs(t, err, context.DeadlineExceeded)
			assert.ErrorContains(t, err, "loading skill test/hostile from "+p.Dir+": "+tc.says)
		})
	}
}

// The start-up limit is the manifest's timeout, never less than
// MinStartTimeout.
func TestStartTimeout(t *testing.T) {
	for _, tc := range []struct {
		timeout, want time.Duration
	}{
		{0, registry.DefaultTimeout},
		{200 * time.Millisecond, MinStartTimeout},
		{MinStartTimeout, MinStartTimeout},
		{30 * time.Second, 30 * time.Second},
	} {
		m := &registry.Manifest{ID: "acme/x", Timeout: tc.timeout}
		assert.Equal(t, tc.want, StartTimeout(m), "timeout %v", tc.timeout)
	}
}

// LoadAll loads packages several at once, no more than
// MaxConcurrentLoads, and reports each one's fate in the order given: the
// sound ones load whatever the others do.
func TestLoadAllLoadsConcurrentlyAndReportsEach(t *testing.T) {
	r := newRig(t, Config{})
	root := t.TempDir()
	mk := func(name, manifest string, module []byte) string {
		dir := filepath.Join(root, name)
		require.NoError(t, wasmtest.WritePackage(dir, manifest, module, testLocale))
		return dir
	}
	m := func(id string) string { return hostileManifest(`"id": "test/` + id + `", "timeout": "200ms"`) }
	dirs := []string{
		mk("a", m("a"), sound),
		mk("b", m("b"), loopsInInitialize),
		mk("c", m("c"), sound),
		mk("d", m("d"), loopsInVersion),
		mk("e", m("e"), sound),
		mk("f", m("f"), sound),
		filepath.Join(root, "missing"),
		mk("g", m("g"), sound),
	}
	require.NoError(t, os.Remove(filepath.Join(dirs[5], "manifest.json")))

	// The first MaxConcurrentLoads checks wait for one another: loads one
	// after another would never get past the first.
	var inFlight, most atomic.Int32
	var arrived sync.WaitGroup
	arrived.Add(MaxConcurrentLoads)
	all := make(chan struct{})
	go func() { arrived.Wait(); close(all) }() // ends when MaxConcurrentLoads checks arrived
	var n atomic.Int32
	refused := errors.New("its intents are refused")
	check := func(ctx context.Context, p *skillpkg.Package) error {
		now := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); now > m && !most.CompareAndSwap(m, now); m = most.Load() {
		}
		if n.Add(1) <= MaxConcurrentLoads {
			arrived.Done()
		}
		select {
		case <-all:
		case <-time.After(time.Minute):
			return errors.New("the other loads never came: loads are not concurrent")
		}
		if p.Manifest.ID == "test/e" {
			return refused
		}
		return nil
	}
	got := r.e.LoadAll(context.Background(), dirs, check)
	require.Len(t, got, len(dirs))
	assert.LessOrEqual(t, most.Load(), int32(MaxConcurrentLoads))
	for i, want := range []struct {
		id   string
		says string
	}{
		{"test/a", ""},
		{"test/b", "_initialize did not return within 5s"},
		{"test/c", ""},
		{"test/d", "jibo_abi_version did not return within 5s"},
		{"test/e", "its intents are refused"},
		{"", "manifest.json"},
		{"", "missing"},
		{"test/g", ""},
	} {
		l := got[i]
		assert.Equal(t, dirs[i], l.Dir)
		assert.Equal(t, want.id, l.ID, l.Dir)
		if want.says == "" {
			require.NoError(t, l.Err, l.Dir)
			require.NotNil(t, l.Skill)
			assert.Equal(t, want.id, l.Skill.Manifest().ID)
			continue
		}
		assert.Nil(t, l.Skill)
		assert.ErrorContains(t, l.Err, want.says, l.Dir)
	}
	assert.ErrorIs(t, got[4].Err, refused)
}
