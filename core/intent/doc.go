// Package intent implements the OVOS template intent stack: the sentence
// template grammar (OVOS-INTENT-1), locale resource files (OVOS-INTENT-2),
// the template and keyword engines (OVOS-INTENT-3), the registration
// service (OVOS-INTENT-4), and the stack that ranks their candidates and
// offers them to the pipeline.
//
// The pieces build on each other:
//
//   - [Parse] and [Expand] turn one template such as
//     "turn (on|off) [the] {device}" into its exact sample set (§3.2), for
//     tools; [Check] validates a template the way the engine does, without
//     expanding it.
//   - [ReadLines] and [LoadLocale] read a skill's locale folder, validate every
//     file and check the languages against each other.
//   - [TemplateEngine] compiles [TemplateIntent] definitions (the REG-06
//     payload plus its scope) into word graphs and parses each utterance
//     against them directly, ranking parses by entity hints (GRM-15), typed
//     values, skip words and literal coverage; [KeywordEngine] matches
//     keyword definitions (REG-05).
//   - [Service] reads the registration topics and feeds the engines.
//   - [Stack], built by [NewStack], is what the robot, the tools, the
//     scenario runner, the skills' test rig and jibohub use: one
//     recognition per utterance round, ranked over every source and every
//     hypothesis of the speech recogniser's n-best, read by the pipeline
//     bands ([Band]) that claim by calibrated score. Further sources plug
//     in: a [Generaliser] (the paraphrase tier, package paraphrase) claims
//     in a stage of its own after intents-high, a [Learner] learns the
//     registered intents off the utterance path, and [Stack.Guess] says
//     what a round nothing claimed was half understood as. [Stack.Pipeline]
//     is the robot's pipeline order.
//
// See docs/intents.md for the design, the score order, the limits and the
// measured figures.
package intent
