// Package graph is Jibo's graph skill framework (spec/jibo.md §4): a skill's
// conversation as a graph of nodes joined by named transitions, run one turn
// at a time, with all state in the session the robot keeps between turns.
//
// # Building a graph
//
// New names the graph and its exits. AddNode adds a node with bindings
// (To a node, ToExit an exit) that cover exactly the node's transitions;
// the first node added is the initial one unless SetInitial says
// otherwise. AddSubGraph adds a finalized graph's nodes, binding each of
// its exits. Finalize checks that every transition leads to a node of the
// graph or a declared exit, every node is reachable from the initial node
// and every exit is used, then locks the graph. Each problem is an *Error
// wrapping one of the Err… sentinels and naming the graph, node,
// transition or exit concerned.
//
// # Running it
//
// A Manager numbers the nodes of registered graphs (see Manager for why
// the numbering is part of the wire format) and runs turns: Start enters
// the initial node, Resume exits the node the session waits in. Entering a
// node that produces an action or a redirect ends the turn; otherwise the
// node is exited at once and its transition followed, its result becoming
// the next node's Data.Result. The session is exactly what travels on the
// wire, {id, nodeID, data, trace}: trace lists every node entered with the
// transition that left it, null for the node the skill waits in.
//
// Skill is GraphSkill: a graph behind the skill protocol (package base
// does the request and response checks). WriteDOT draws a graph and
// RenderPNG renders the drawing with Graphviz.
//
// The built-in nodes are NoOpNode, DefaultNode, TrueFalseNode, JCPNode,
// SetLooperIDNode, and FuncNode for nodes made of functions.
package graph
