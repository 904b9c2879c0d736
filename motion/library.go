package motion

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
)

//go:embed animations/*.json
var builtinFS embed.FS

// MaxLibrary bounds the animations in one Library.
const MaxLibrary = 1024

// Library is a set of animations by name.
type Library struct {
	byName map[string]*Animation
	names  []string
}

// NewLibrary returns a library of anims; two with the same name are an
// error.
func NewLibrary(anims ...*Animation) (*Library, error) {
	if len(anims) > MaxLibrary {
		return nil, fmt.Errorf("animation library: %d animations, limit %d", len(anims), MaxLibrary)
	}
	l := &Library{byName: map[string]*Animation{}}
	for _, a := range anims {
		if _, dup := l.byName[a.Name]; dup {
			return nil, fmt.Errorf("animation library: two animations called %q", a.Name)
		}
		l.byName[a.Name] = a
		l.names = append(l.names, a.Name)
	}
	slices.Sort(l.names)
	return l, nil
}

// Builtin returns a new library of the animations shipped with jibod
// (motion/animations): nod, shake, look-around, dance and light patterns.
func Builtin() (*Library, error) {
	return LoadLibrary(builtinFS, "animations")
}

// LoadLibrary reads every *.json animation in dir of fsys.
func LoadLibrary(fsys fs.FS, dir string) (*Library, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, fmt.Errorf("load animations: %w", err)
	}
	var anims []*Animation
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		if len(anims) == MaxLibrary {
			return nil, fmt.Errorf("load animations: more than %d in %s", MaxLibrary, dir)
		}
		data, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("load animations: %w", err)
		}
		a, err := ParseAnimation(data)
		if err != nil {
			return nil, fmt.Errorf("load animations: %s: %w", e.Name(), err)
		}
		anims = append(anims, a)
	}
	return NewLibrary(anims...)
}

// Names returns the animations' names, sorted.
func (l *Library) Names() []string { return slices.Clone(l.names) }

// Lookup finds an animation by a reference as JCP's PLAY_ANIMATION and
// ESML's <anim name> give it: a name ("nod"), or a URL or path whose last
// element, less a ".json" or ".keys" extension, is the name
// ("animations/nod.keys", "anim://nod").
func (l *Library) Lookup(ref string) (*Animation, bool) {
	name := ref
	if i := strings.LastIndexAny(name, "/:"); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".anim.json", ".json", ".keys"} {
		name = strings.TrimSuffix(name, ext)
	}
	a, ok := l.byName[name]
	return a, ok
}

// ByCategory returns the first animation, by name, tagged with every one
// of cats.
func (l *Library) ByCategory(cats ...string) (*Animation, bool) {
	for _, n := range l.names {
		if a := l.byName[n]; a.HasCategory(cats...) {
			return a, true
		}
	}
	return nil, false
}
