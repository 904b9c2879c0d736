// Package loop is the former name of core/skill/people. It forwards the
// names that cmd/jibod's robot and speech grammar wiring still use, while
// those files are being reworked on other branches (issue 25); delete it
// once they import core/skill/people.
package loop

import "github.com/openjibo/jibod/core/skill/people"

// Store is people.Store.
type Store = people.Store

// Member is people.Member.
type Member = people.Member

// TopicChanged is people.TopicChanged.
const TopicChanged = people.TopicChanged

// DefaultWatchInterval is people.DefaultWatchInterval.
const DefaultWatchInterval = people.DefaultWatchInterval
