package graph

import (
	"context"

	"github.com/openjibo/jibod/core/skill/base"
	"github.com/openjibo/jibod/jcp"
)

// Node is one state of a graph (§4). A node is entered when a transition
// leads to it and exited when the graph moves on: at once if Enter
// produced nothing, or on the skill's next LISTEN_UPDATE if Enter produced
// an action (the robot runs it, and the user's answer arrives as an
// update).
//
// Nodes are told apart by identity, so each must be a distinct pointer.
// A node is shared by every turn of every session: keep per-session state
// in Data (Get/Set), not in the node.
type Node interface {
	// Name names the node in errors, traces and DOT; names need not be
	// unique.
	Name() string
	// Transitions lists the names the node may leave by, each once.
	Transitions() []string
	// Enter runs when the graph arrives at the node.
	Enter(ctx context.Context, d *Data) (EnterResult, error)
	// Exit chooses how to leave the node.
	Exit(ctx context.Context, d *Data) (ExitResult, error)
}

// Redirect hands the turn to another skill.
type Redirect = base.Redirect

// EnterResult is what entering a node produced. An action or a redirect
// ends the turn; an empty result leaves the node at once.
type EnterResult struct {
	// Action is the JCP action for the robot to run; nil for none.
	Action *jcp.Action
	// Redirect hands the turn to another skill; nil for none.
	Redirect *Redirect
	// Final marks Action as the skill's last (the SKILL_ACTION's final).
	Final bool
}

// ExitResult is how a node is left: by a transition, carrying a result
// for the next node (Data.Result), or by a redirect.
type ExitResult struct {
	// Transition is one of the node's Transitions.
	Transition string
	// Result becomes the next node's Data.Result; nil becomes nil.
	Result any
	// Redirect hands the turn to another skill instead of moving on.
	Redirect *Redirect
}
