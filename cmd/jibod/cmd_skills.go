package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/openjibo/jibod/core/runtime"
	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/skillcheck"
	"github.com/openjibo/jibod/core/skill/skilltool"
)

const skillsUsage = `Usage:
  jibod skills list [--state DIR] [--permission P] [--json]
                                                the robot's skills: versions, permissions, limits
  jibod skills install [--state DIR] DIR|FILE.zip
                                                check a WebAssembly skill package and install it; a running
                                                jibod loads it at once (an older version is replaced)
  jibod skills uninstall [--state DIR] [--purge] ID
                                                remove an installed WebAssembly skill (--purge: and its stored
                                                data); a running jibod unloads it at once
  jibod skills check DIR                        load a skill folder (an OVOS skill's, a package, or a locale
                                                folder) as the robot would: per file loaded, refused and why,
                                                per intent registered or not; exit status 1 if anything is refused
  jibod skills graph SKILL_ID [--png FILE]      a graph skill's graph as Graphviz DOT (--png renders it)
  jibod skills try FILE.mim|SKILL_ID|DIR [--answers FILE] [--json]
  jibod skills try --local-skill PROGRAM        play a MIM or a skill turn by turn: each response, the
                                                SLIMs played, the node trace (see 'jibod skills try -h')
  jibod skills runs [--state DIR] [--skill ID] [--outcome O] [-n N] [--json]
                                                the newest skill calls and how they ended
`

// maxRunsShown bounds `skills runs -n`.
const maxRunsShown = 10_000

// cmdSkills dispatches the skill tools.
func cmdSkills(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, skillsUsage)
		return usageError{"skills: missing command"}
	}
	switch args[0] {
	case "list":
		return cmdSkillsList(args[1:], stdout, stderr)
	case "install":
		return cmdSkillsInstall(ctx, args[1:], stdout, stderr)
	case "uninstall":
		return cmdSkillsUninstall(ctx, args[1:], stdout, stderr)
	case "check":
		return cmdSkillsCheck(ctx, args[1:], stdout, stderr)
	case "graph":
		return cmdSkillsGraph(ctx, args[1:], stdout, stderr)
	case "try":
		return cmdSkillsTry(ctx, args[1:], stdin, stdout, stderr)
	case "runs":
		return cmdSkillsRuns(args[1:], stdout, stderr)
	default:
		fmt.Fprint(stderr, skillsUsage)
		return usageError{fmt.Sprintf("skills: unknown command %q", args[0])}
	}
}

func cmdSkillsCheck(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one DIR: a skill folder (locale/ or language folders; manifest.json optional)"}
	}
	rep, err := skillcheck.Check(ctx, fs.Arg(0), nil)
	if err != nil {
		return err
	}
	if err := rep.WriteText(stdout); err != nil {
		return err
	}
	if !rep.OK() {
		return errors.New("skills check: some files or intents were refused (see above)")
	}
	return nil
}

// installedSkills builds the robot's built-in skills as the robot does,
// without a body: enough to read their manifests and graphs.
func installedSkills() ([]skill.Skill, error) {
	return runtime.BuiltinSkills(runtime.SkillDeps{Now: time.Now})
}

func cmdSkillsList(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	perm := fs.String("permission", "", "only skills granted this permission ("+skilltool.PermissionNames()+")")
	stateDir := fs.String("state", runtime.DefaultStateDir(), "the robot's state folder, whose skills/ holds the installed Wasm skills")
	asJSON := fs.Bool("json", false, "print manifests as JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *perm != "" && !registry.Permission(*perm).Valid() {
		return usageError{fmt.Sprintf("--permission %q: want one of %s", *perm, skilltool.PermissionNames())}
	}
	skills, err := installedSkills()
	if err != nil {
		return err
	}
	if *stateDir == runtime.NoState {
		*stateDir = ""
	}
	return skilltool.List(stdout, stderr, skills, *stateDir, registry.Permission(*perm), *asJSON)
}

func cmdSkillsGraph(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills graph", flag.ContinueOnError)
	fs.SetOutput(stderr)
	png := fs.String("png", "", "also render the graph to this PNG file (needs Graphviz's dot)")
	if err := parseFlags(fs, reorderFlags(args, "png")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one SKILL_ID (see 'jibod skills list')"}
	}
	skills, err := installedSkills()
	if err != nil {
		return err
	}
	return skilltool.Graph(ctx, stdout, skills, fs.Arg(0), *png)
}

// reorderFlags moves "--name value" pairs of the named flags before the
// positional arguments, so "graph ID --png F" works as well as
// "graph --png F ID".
func reorderFlags(args []string, valued ...string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.TrimLeft(a, "-")
		if strings.HasPrefix(a, "-") && slices.Contains(valued, name) && i+1 < len(args) {
			flags = append(flags, a, args[i+1])
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			flags = append(flags, a)
			continue
		}
		rest = append(rest, a)
	}
	return append(flags, rest...)
}

func cmdSkillsRuns(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills runs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir := fs.String("state", runtime.DefaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	skillID := fs.String("skill", "", "only this skill (manifest id or bus id)")
	outcome := fs.String("outcome", "", "only calls with this outcome")
	n := fs.Int("n", 20, "show at most this many, newest first")
	asJSON := fs.Bool("json", false, "print records as JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *n < 1 || *n > maxRunsShown {
		return usageError{fmt.Sprintf("-n %d: want 1..%d", *n, maxRunsShown)}
	}
	if *outcome != "" {
		if err := skilltool.CheckOutcome(*outcome); err != nil {
			return usageError{fmt.Sprintf("--outcome %q: %v", *outcome, err)}
		}
	}
	if *stateDir == "" || *stateDir == runtime.NoState {
		return usageError{"--state: the robot keeps run records only in a state folder"}
	}
	return skilltool.Runs(stdout, *stateDir, runtime.RunsFileName,
		invoke.Filter{Skill: *skillID, Outcome: invoke.Outcome(*outcome), Limit: *n}, *asJSON)
}

// skillFlags declares the flags of install and uninstall: the state
// folder, and the running jibod's shell socket.
func skillFlags(name string, stderr io.Writer) (fs *flag.FlagSet, stateDir, socket *string) {
	fs = flag.NewFlagSet("skills "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	stateDir = fs.String("state", runtime.DefaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
	socket = fs.String("socket", "", "the running jibod's shell socket (default: where 'jibod shell' looks for the state folder's jibod)")
	return fs, stateDir, socket
}

func cmdSkillsInstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, stateDir, socket := skillFlags("install", stderr)
	if err := parseFlags(fs, reorderFlags(args, "state", "socket")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one DIR or FILE.zip: a skill package (manifest.json, skill.wasm, locale/)"}
	}
	if *stateDir == "" || *stateDir == runtime.NoState {
		return usageError{"--state: installed skills live in a state folder"}
	}
	return runtime.InstallSkill(ctx, *stateDir, *socket, fs.Arg(0), stdout, stderr)
}

func cmdSkillsUninstall(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs, stateDir, socket := skillFlags("uninstall", stderr)
	purge := fs.Bool("purge", false, "also delete what the skill stored")
	if err := parseFlags(fs, reorderFlags(args, "state", "socket")); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageError{"want exactly one skill ID (namespace/name), as 'jibod skills list' shows it"}
	}
	if *stateDir == "" || *stateDir == runtime.NoState {
		return usageError{"--state: installed skills live in a state folder"}
	}
	return runtime.SkillInstaller(*stateDir, *socket, stdout, stderr).Uninstall(ctx, fs.Arg(0), *purge)
}
