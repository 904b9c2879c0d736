package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/openjibo/jibod/core/skill"
	"github.com/openjibo/jibod/core/skill/graph"
	"github.com/openjibo/jibod/core/skill/invoke"
	"github.com/openjibo/jibod/core/skill/registry"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
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

// installedSkills builds the robot's built-in skills as the robot does,
// without a body: enough to read their manifests and graphs.
func installedSkills() ([]skill.Skill, error) {
	return builtinSkills(skillDeps{Now: time.Now})
}

func cmdSkillsList(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("skills list", flag.ContinueOnError)
	fs.SetOutput(stderr)
	perm := fs.String("permission", "", "only skills granted this permission ("+permissionNames()+")")
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder, whose skills/ holds the installed Wasm skills")
	asJSON := fs.Bool("json", false, "print manifests as JSON lines")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	if *perm != "" && !registry.Permission(*perm).Valid() {
		return usageError{fmt.Sprintf("--permission %q: want one of %s", *perm, permissionNames())}
	}
	skills, err := installedSkills()
	if err != nil {
		return err
	}
	reg := registry.New()
	for _, s := range skills {
		if err := reg.Add(s.Manifest()); err != nil {
			return err
		}
	}
	installed, err := addInstalled(reg, *stateDir, stderr)
	if err != nil {
		return err
	}
	list := reg.List()
	if *perm != "" {
		if list, err = reg.ListByPermission(registry.Permission(*perm)); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, m := range list {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tBUS ID\tVERSION\tKIND\tSAFETY\tPERMISSIONS\tLIMITS\tDESCRIPTION")
	for _, m := range list {
		perms := make([]string, len(m.Permissions))
		for i, p := range m.Permissions {
			perms[i] = string(p)
		}
		kind := "built-in"
		if installed[m.ID] {
			kind = "wasm"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.BusID(), m.Version, kind, m.SafetyLevel,
			strings.Join(perms, ","), limitsText(m, installed[m.ID]), m.Description)
	}
	return tw.Flush()
}

func permissionNames() string {
	var out []string
	for _, p := range registry.AllPermissions() {
		out = append(out, string(p))
	}
	return strings.Join(out, ", ")
}

// graphSkill is a skill built on a conversation graph.
type graphSkill interface {
	Graph() *graph.Graph
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
	id := fs.Arg(0)
	skills, err := installedSkills()
	if err != nil {
		return err
	}
	var ids []string
	for _, s := range skills {
		m := s.Manifest()
		ids = append(ids, m.ID)
		if m.ID != id && m.BusID() != id {
			continue
		}
		gs, ok := s.(graphSkill)
		if !ok || gs.Graph() == nil {
			return fmt.Errorf("skill %s is not a graph skill", m.ID)
		}
		var dot bytes.Buffer
		if err := graph.WriteDOT(&dot, gs.Graph()); err != nil {
			return fmt.Errorf("drawing %s: %w", m.ID, err)
		}
		if _, err := stdout.Write(dot.Bytes()); err != nil {
			return err
		}
		if *png != "" {
			if err := graph.RenderPNG(ctx, dot.Bytes(), *png); err != nil {
				return fmt.Errorf("rendering %s: %w", *png, err)
			}
		}
		return nil
	}
	slices.Sort(ids)
	return fmt.Errorf("no skill %q on this robot (skills: %s)", id, strings.Join(ids, ", "))
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
	stateDir := fs.String("state", defaultStateDir(), "the robot's state folder (as given to 'jibod run --state')")
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
	if *outcome != "" && !slices.Contains(invoke.Outcomes(), invoke.Outcome(*outcome)) {
		var names []string
		for _, o := range invoke.Outcomes() {
			names = append(names, string(o))
		}
		return usageError{fmt.Sprintf("--outcome %q: want one of %s", *outcome, strings.Join(names, ", "))}
	}
	if *stateDir == "" || *stateDir == noState {
		return usageError{"--state: the robot keeps run records only in a state folder"}
	}
	recs, err := invoke.ReadFile(filepath.Join(*stateDir, runsFileName),
		invoke.Filter{Skill: *skillID, Outcome: invoke.Outcome(*outcome), Limit: *n})
	if err != nil {
		return fmt.Errorf("reading run records: %w", err)
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(recs) == 0 {
		fmt.Fprintf(stdout, "no skill calls recorded in %s\n", *stateDir)
		return nil
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tSKILL\tINTENT\tTYPE\tOUTCOME\tTRIES\tDURATION\tREQUEST\tERROR")
	for _, r := range recs {
		intentName := r.Intent
		if intentName == "" {
			intentName = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", r.Time.Local().Format("2006-01-02 15:04:05"), r.Skill,
			intentName, r.RequestType, r.Outcome, r.Attempts, r.Duration.Round(10*time.Microsecond), r.RequestID, oneLine(r.Error))
	}
	return tw.Flush()
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// addInstalled adds the manifests of the Wasm skills installed in the
// state folder to reg and returns their ids. A package that cannot be read
// is reported on w and left out, as the robot leaves it out.
func addInstalled(reg *registry.Registry, stateDir string, w io.Writer) (map[string]bool, error) {
	ids := map[string]bool{}
	if stateDir == "" || stateDir == noState {
		return ids, nil
	}
	entries, err := skillpkg.List(filepath.Join(stateDir, skillsDirName))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Err == nil {
			e.Err = reg.Add(e.Manifest)
		}
		if e.Err != nil {
			fmt.Fprintf(w, "jibod skills list: not loadable: %v\n", e.Err)
			continue
		}
		ids[e.Manifest.ID] = true
	}
	return ids, nil
}
