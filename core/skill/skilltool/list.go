package skilltool

import (
	"bytes"
	"context"
	"encoding/json"
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
	"github.com/openjibo/jibod/core/skill/wasm"
	"github.com/openjibo/jibod/core/skill/wasm/installed"
	"github.com/openjibo/jibod/core/skill/wasm/skillpkg"
)

// List writes the manifests of the built-in skills and of the Wasm skills
// installed in stateDir ("" for none) to w, as a table or as JSON lines;
// with perm, only the skills granted it. An installed package that cannot
// be read is reported on warn and left out, as the robot leaves it out.
func List(w, warn io.Writer, builtins []skill.Skill, stateDir string, perm registry.Permission, asJSON bool) error {
	reg := registry.New()
	for _, s := range builtins {
		if err := reg.Add(s.Manifest()); err != nil {
			return err
		}
	}
	isWasm, err := addInstalled(reg, stateDir, warn)
	if err != nil {
		return err
	}
	list := reg.List()
	if perm != "" {
		if list, err = reg.ListByPermission(perm); err != nil {
			return err
		}
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, m := range list {
			if err := enc.Encode(m); err != nil {
				return err
			}
		}
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tBUS ID\tVERSION\tKIND\tSAFETY\tPERMISSIONS\tLIMITS\tDESCRIPTION")
	for _, m := range list {
		perms := make([]string, len(m.Permissions))
		for i, p := range m.Permissions {
			perms[i] = string(p)
		}
		kind := "built-in"
		if isWasm[m.ID] {
			kind = "wasm"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", m.ID, m.BusID(), m.Version, kind, m.SafetyLevel,
			strings.Join(perms, ","), limitsText(m, isWasm[m.ID]), m.Description)
	}
	return tw.Flush()
}

// PermissionNames lists the permissions a manifest may ask for.
func PermissionNames() string {
	var out []string
	for _, p := range registry.AllPermissions() {
		out = append(out, string(p))
	}
	return strings.Join(out, ", ")
}

// addInstalled adds the manifests of the Wasm skills installed in the
// state folder to reg and returns their ids.
func addInstalled(reg *registry.Registry, stateDir string, warn io.Writer) (map[string]bool, error) {
	ids := map[string]bool{}
	if stateDir == "" {
		return ids, nil
	}
	entries, err := skillpkg.List(filepath.Join(stateDir, installed.SkillsDirName))
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Err == nil {
			e.Err = reg.Add(e.Manifest)
		}
		if e.Err != nil {
			fmt.Fprintf(warn, "jibod skills list: not loadable: %v\n", e.Err)
			continue
		}
		ids[e.Manifest.ID] = true
	}
	return ids, nil
}

func permissionText(m *registry.Manifest) string {
	if len(m.Permissions) == 0 {
		return "none"
	}
	names := make([]string, len(m.Permissions))
	for i, p := range m.Permissions {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// limitsText says what a skill may spend: its time per call and calls per
// minute, and for a Wasm skill its memory (and the hosts it may fetch
// from).
func limitsText(m *registry.Manifest, isWasm bool) string {
	lim := m.EffectiveLimits()
	parts := []string{fmt.Sprintf("%s per call", m.EffectiveTimeout()), fmt.Sprintf("%d calls/min", lim.CallsPerMinute)}
	if isWasm {
		parts = append(parts, fmt.Sprintf("%d MiB memory", wasm.MemoryMiB(m)))
	}
	if len(m.NetworkHosts) > 0 {
		parts = append(parts, "hosts "+strings.Join(m.NetworkHosts, " "))
	}
	return strings.Join(parts, ", ")
}

// graphSkill is a skill built on a conversation graph.
type graphSkill interface {
	Graph() *graph.Graph
}

// Graph writes the graph of the skill id (manifest or bus id) among skills
// to w as Graphviz DOT and, when png is not "", renders it to that file.
func Graph(ctx context.Context, w io.Writer, skills []skill.Skill, id, png string) error {
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
		if _, err := w.Write(dot.Bytes()); err != nil {
			return err
		}
		if png != "" {
			if err := graph.RenderPNG(ctx, dot.Bytes(), png); err != nil {
				return fmt.Errorf("rendering %s: %w", png, err)
			}
		}
		return nil
	}
	slices.Sort(ids)
	return fmt.Errorf("no skill %q on this robot (skills: %s)", id, strings.Join(ids, ", "))
}

// CheckOutcome says what is wrong with an outcome to filter run records
// by, nil when it is one.
func CheckOutcome(o string) error {
	if slices.Contains(invoke.Outcomes(), invoke.Outcome(o)) {
		return nil
	}
	var names []string
	for _, o := range invoke.Outcomes() {
		names = append(names, string(o))
	}
	return fmt.Errorf("want one of %s", strings.Join(names, ", "))
}

// Runs writes the run records of file, the state folder stateDir's, that
// pass f to w, newest first, as a table or as JSON lines.
func Runs(w io.Writer, stateDir, file string, f invoke.Filter, asJSON bool) error {
	recs, err := invoke.ReadFile(filepath.Join(stateDir, file), f)
	if err != nil {
		return fmt.Errorf("reading run records: %w", err)
	}
	if asJSON {
		enc := json.NewEncoder(w)
		for _, r := range recs {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return nil
	}
	if len(recs) == 0 {
		fmt.Fprintf(w, "no skill calls recorded in %s\n", stateDir)
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
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
