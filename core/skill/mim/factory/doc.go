// Package factory builds the graphs of Jibo's MIM factories (spec/jibo.md
// §5.3) on top of package graph: finalized graphs a skill runs on its own
// (graph.NewSkill) or adds to its own graph as subgraphs.
//
//	AN     "AN MIM: x"   AN:SL:x plays one announcement           exit Success
//	MAN    "MAN MIM: x"  MAN:SL:x plays several, as a SEQUENCE    exit Success
//	QN     "QN MIM: x"   QN:SL:x asks; NM:SL:x and NI:SL:x are     exits Success,
//	                     the no-match and no-input ladders          NoMatch, NoInput
//	MIM    "MIM: x"      Router:x picks QN or AN by mim_type       exits Success,
//	                                                                NoMatch, NoInput
//	OptIn  "OptIn: x"    proposes, takes yes / no / wrong person   exits Accepted,
//	                                                                NotInLoop, Declined
//
// # Turns
//
// A node that speaks ends the turn with its SLIM; the robot runs it and,
// for a question, listens with the MIM's rule. The answer comes back as a
// LISTEN_UPDATE, and the node leaves by the multi-turn rule: an NLU intent
// is Success (the next node's Data.Result is protocol.Result{NLU, ASR}),
// otherwise heard text is NoMatch, otherwise NoInput.
//
// NoMatch leads to NM:SL:x, which counts the miss and plays the Errors/NM
// prompt of that index (1 for the first), then listens again and leaves by
// the same rule, so the ladders loop into each other. When the ladder has
// no prompt for the count reached, the node says nothing and leaves by
// FinalNoMatch, and the graph by its NoMatch exit, the next node getting
// Exhausted{NoMatch: true} ({noMatch: true}) as its Data.Result rather than
// the last answer; no-input likewise with NI:SL:x, FinalNoInput, NoInput
// and Exhausted{NoInput: true}. The counts live in the session as
// session.data._mim (mim.DialogState), reset when QN:SL:x (or MAN:SL:x)
// starts, and decide when the MIM's gui is shown.
//
// # Options
//
// Options is MimFactoryOptions: MIMs supplies the MIM or MIMs (from a
// path, a MIM, a list or a function of the turn), PromptData or SkillData
// what templates see, ViewData what a shown gui gets, Final whether an
// announcement is the skill's last action.
package factory
