package grammar

// GarbagePrefix marks the words of the garbage rule in a recogniser's
// output: a sentence holding one is speech the robot cannot act on.
const GarbagePrefix = "~"

// GarbageWords are everyday English words the garbage rule loops over, so
// that speech outside the grammar has a better explanation than the
// nearest command. Short, frequent words and names that sound like the
// wake phrase ("joe", "jim", "bo") are what matter; the list is not meant
// to cover the language.
var GarbageWords = []string{
	// function words
	"a", "about", "after", "all", "am", "an", "and", "any", "are", "as", "at", "be", "because", "been", "before",
	"but", "by", "can", "could", "did", "do", "does", "down", "for", "from", "had", "has", "have", "he", "her",
	"here", "him", "his", "how", "i", "if", "in", "into", "is", "it", "its", "just", "like", "me", "more", "my",
	"no", "not", "now", "of", "off", "on", "one", "only", "or", "our", "out", "over", "she", "so", "some",
	"than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "to", "too", "up", "us",
	"very", "was", "we", "well", "were", "what", "when", "where", "which", "who", "why", "will", "with",
	"would", "yes", "you", "your",
	// verbs
	"ask", "bring", "buy", "call", "come", "cook", "eat", "feel", "find", "get", "give", "go", "going", "got",
	"help", "keep", "know", "leave", "let", "live", "look", "make", "need", "play", "put", "read", "run", "said",
	"say", "see", "sit", "take", "talk", "tell", "think", "try", "turn", "use", "walk", "want", "watch", "work",
	"write",
	// nouns and adjectives
	"apple", "baby", "bad", "ball", "beach", "best", "big", "book", "box", "boy", "bread", "car", "cat", "child",
	"city", "coffee", "cold", "day", "dinner", "dog", "door", "early", "family", "farm", "fine", "first",
	"food", "friend", "fun", "game", "garden", "girl", "good", "great", "green", "hand", "happy", "home",
	"hot", "house", "idea", "kitchen", "late", "little", "long", "lot", "lunch", "man", "money", "morning",
	"mother", "movie", "music", "name", "new", "nice", "night", "old", "party", "people", "phone", "place",
	"red", "right", "room", "school", "shop", "small", "story", "street", "sun", "table", "thing", "today",
	"tomorrow", "town", "train", "tree", "water", "way", "week", "woman", "world", "year",
	// numbers
	"two", "three", "four", "five", "six", "ten", "hundred",
	// names and sounds near the wake phrase
	"hey", "hi", "joe", "jim", "jay", "bo", "bob", "gee", "jeep", "jibber", "jingle", "ray", "hay", "yo",
}
