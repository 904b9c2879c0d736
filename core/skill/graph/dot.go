package graph

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Colours of the DOT output: the initial node, the other nodes, the exits.
const (
	dotInitialColor = "#b7e4c7"
	dotNodeColor    = "#dbe9f6"
	dotExitColor    = "#f4cccc"
)

// WriteDOT writes the finalized graph g in Graphviz DOT: the initial node,
// the other nodes and the exits in distinct colours, each subgraph as a
// cluster, each edge labelled by its transition. A node's label is its id
// and name; ids are those a Manager gives g's nodes when g is the first
// graph registered with it, as a graph skill's own Manager does. The
// output depends only on how g was built.
func WriteDOT(w io.Writer, g *Graph) error {
	if g == nil || !g.finalized {
		name := ""
		if g != nil {
			name = g.name
		}
		return gerr(name, "", "", "", ErrNotFinalized, "write DOT")
	}
	ids := make(map[*vertex]int, len(g.order))
	for i, v := range g.order {
		ids[v] = i
	}
	start := g.byNode[g.initial]
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(g.name))
	fmt.Fprintf(bw, "\tlabel=%s;\n\tlabelloc=t;\n\trankdir=LR;\n\tfontname=\"Helvetica\";\n", dotQuote(g.name))
	bw.WriteString("\tnode [shape=box, style=\"rounded,filled\", fontname=\"Helvetica\"];\n")
	bw.WriteString("\tedge [fontname=\"Helvetica\", fontsize=10];\n")
	writeDOTNodes(bw, g, ids, start, "\t")
	for i, e := range g.exits {
		fmt.Fprintf(bw, "\tx%d [label=%s, shape=doublecircle, fillcolor=%q];\n", i, dotQuote(e), dotExitColor)
	}
	exitIDs := make(map[string]int, len(g.exits))
	for i, e := range g.exits {
		exitIDs[e] = i
	}
	for _, v := range g.order {
		for _, t := range v.names {
			to := v.edges[t]
			dest := ""
			if to.exit != "" {
				dest = fmt.Sprintf("x%d", exitIDs[to.exit])
			} else {
				dest = fmt.Sprintf("n%d", ids[to.v])
			}
			fmt.Fprintf(bw, "\tn%d -> %s [label=%s];\n", ids[v], dest, dotQuote(t))
		}
	}
	bw.WriteString("}\n")
	return bw.Flush()
}

// writeDOTNodes writes the nodes g added itself, then one cluster per
// subgraph, recursively.
func writeDOTNodes(w *bufio.Writer, g *Graph, ids map[*vertex]int, start *vertex, indent string) {
	for _, v := range g.order {
		if v.owner != g {
			continue
		}
		color := dotNodeColor
		if v == start {
			color = dotInitialColor
		}
		fmt.Fprintf(w, "%sn%d [label=%s, fillcolor=%q];\n", indent, ids[v], dotQuote(fmt.Sprintf("%d: %s", ids[v], v.name)), color)
	}
	for _, sub := range g.subs {
		fmt.Fprintf(w, "%ssubgraph cluster_%d {\n", indent, ids[sub.order[0]])
		fmt.Fprintf(w, "%s\tlabel=%s;\n%s\tstyle=dashed;\n", indent, dotQuote(sub.name), indent)
		writeDOTNodes(w, sub, ids, start, indent+"\t")
		fmt.Fprintf(w, "%s}\n", indent)
	}
}

// dotQuote quotes s as a DOT string.
func dotQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`, "\r", "")
	return `"` + r.Replace(s) + `"`
}

// MaxGraphvizOutput bounds what RenderPNG keeps of Graphviz's error output.
const MaxGraphvizOutput = 4 << 10

// RenderPNG runs Graphviz ("dot -Tpng") to render the DOT text dot into
// the PNG file path. Without Graphviz installed it fails with an error
// matching ErrNoGraphviz.
func RenderPNG(ctx context.Context, dot []byte, path string) error {
	bin, err := exec.LookPath("dot")
	if err != nil {
		return fmt.Errorf("render %s: %w (install the graphviz package)", path, ErrNoGraphviz)
	}
	cmd := exec.CommandContext(ctx, bin, "-Tpng", "-o", path)
	cmd.Stdin = bytes.NewReader(dot)
	var stderr limitedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.buf.String())
		if msg == "" {
			return fmt.Errorf("render %s with graphviz: %w", path, err)
		}
		return fmt.Errorf("render %s with graphviz: %w: %s", path, err, msg)
	}
	return nil
}

// limitedBuffer keeps the first MaxGraphvizOutput bytes written to it.
type limitedBuffer struct{ buf bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := MaxGraphvizOutput - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
