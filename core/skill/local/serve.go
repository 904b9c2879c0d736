package local

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/openjibo/jibod/core/skill/skillhttp"
)

// A local skill in a process of its own talks to the robot that started it
// over a Unix socket the robot names in SocketEnv, with HTTP: the Jibo
// skill protocol at skillhttp.Path, as Pegasus served cloud skills, and
// what the robot needs to host it at DescribePath. The process tells the
// robot it is ready by printing Ready on its standard output, and ends
// when its standard input closes (the robot stopped) or on SIGTERM.
const (
	// SocketEnv names the socket the skill process serves.
	SocketEnv = "JIBOD_SKILL_SOCKET"
	// DescribePath answers GET with the skill's Description.
	DescribePath = "/v1/describe"
	// Ready is the line a skill process prints once it serves.
	Ready = "jibod-skill ready"
)

// Description is what a skill process tells the robot about its skill.
type Description struct {
	// Manifest is manifest.json as written.
	Manifest json.RawMessage `json:"manifest"`
	// Files are its locale/ and rules/ files by path ("locale/en-us/x.intent").
	Files map[string]string `json:"files"`
	// ListenRules are the rules its MIMs' questions listen with.
	ListenRules []string `json:"listen_rules,omitempty"`
	// RequiredContext maps its context-gated intents to their keys.
	RequiredContext map[string][]string `json:"required_context,omitempty"`
	// Nodes names a GraphSkill's nodes by id.
	Nodes map[string]string `json:"nodes,omitempty"`
}

// Describe returns the skill's Description.
func (s *Skill) Describe() (*Description, error) {
	d := &Description{Manifest: s.kit.raw, Files: map[string]string{}, ListenRules: s.ListenRules(),
		RequiredContext: s.RequiredContext()}
	for name, tree := range map[string]fs.FS{LocaleDir: s.kit.locale, RulesDir: s.kit.rules} {
		if tree == nil {
			continue
		}
		err := fs.WalkDir(tree, ".", func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := fs.ReadFile(tree, p)
			d.Files[name+"/"+p] = string(b)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("describing skill %s: %w", s.kit.manifest.ID, err)
		}
	}
	if names := s.NodeNames(); names != nil {
		d.Nodes = map[string]string{}
		for id, n := range names {
			d.Nodes[strconv.Itoa(id)] = n
		}
	}
	return d, nil
}

// Serve serves s on a Unix socket at path until ctx ends, and calls ready
// (if not nil) once it does.
func Serve(ctx context.Context, s *Skill, path string, ready func()) error {
	desc, err := s.Describe()
	if err != nil {
		return err
	}
	descJSON, err := json.Marshal(desc)
	if err != nil {
		return fmt.Errorf("describing skill %s: %w", s.kit.manifest.ID, err)
	}
	var lc net.ListenConfig
	l, err := lc.Listen(ctx, "unix", path)
	if err != nil {
		return fmt.Errorf("serving skill %s: %w", s.kit.manifest.ID, err)
	}
	mux := http.NewServeMux()
	mux.Handle(skillhttp.Path, skillhttp.NewHandler(s, skillhttp.ServerOptions{Logger: s.kit.log,
		Timeout: s.kit.manifest.EffectiveTimeout()}))
	mux.HandleFunc(DescribePath, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			http.Error(w, "GET only", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(descJSON)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }() // owned: shut down below and waited for
	if ready != nil {
		ready()
	}
	select {
	case err := <-done:
		return fmt.Errorf("serving skill %s: %w", s.kit.manifest.ID, err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	if serr := <-done; !errors.Is(serr, http.ErrServerClosed) {
		err = errors.Join(err, serr)
	}
	return err
}

// Main is the whole main function of a local skill's own program, run by
// a stock jibod (`jibod run --local-skill PROGRAM`): it builds the skill,
// serves it on the socket the robot names, says it is ready, and returns
// the exit status when the robot is done with it. Run by hand it says how
// it is meant to be run.
//
//	func main() { os.Exit(local.Main(func() (*local.Skill, error) { return hello.New(local.Options{}) })) }
func Main(build func() (*Skill, error)) int {
	path := os.Getenv(SocketEnv)
	if path == "" {
		fmt.Fprintf(os.Stderr, "%s is a jibod skill: run it with `jibod run --local-skill %s`, or try it with `jibod skills try --local-skill %s`\n",
			os.Args[0], os.Args[0], os.Args[0])
		return 2
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	s, err := build()
	if err != nil {
		log.Error("building the skill", "err", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The robot holds our standard input: when it goes, so do we. The
	// reader ends at EOF, which the robot's exit brings, or with the process.
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	err = Serve(ctx, s, path, func() { fmt.Println(Ready) })
	if err != nil {
		log.Error("serving the skill", "err", err)
		return 1
	}
	return 0
}
