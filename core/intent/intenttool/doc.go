// Package intenttool holds the intent tools for skill authors, which
// `jibod intents` runs: expanding templates into their sample sets
// ([ExpandLines]), matching utterances against skill folders as the robot
// would ([LoadSkillFolders], [Matcher], [MatchLines]) and measuring the
// intent stack on a corpus ([LoadCorpus], [Evaluate]). Each is handed the
// robot's stack builder ([NewStack]), so it measures what the robot runs.
package intenttool
