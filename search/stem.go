package search

import "strings"

// How a word of a query matches a word of an item (documented in
// docs/search.md):
//
//   - the same word: full weight;
//   - the same light English stem (stem): "greeting" finds "greet",
//     "greets" and "greeted", and the other way round;
//   - a word the query word starts, for query words of at least
//     minPrefix characters: "deplo" finds "deploy" and "deployment";
//     a query word ending in * ("de*") matches every word it starts
//     whatever its length, at full weight, as asked.
//
// Near matches weigh less than the word itself, so that an item that
// says the very word ranks first.
const (
	stemWeight   = 0.8
	prefixWeight = 0.6
	minPrefix    = 3
)

// matchWeight is how much dictionary word t counts for query word q (0:
// it does not match); st is stem(t), computed once per dictionary.
func matchWeight(q queryTerm, t, st string) float64 {
	switch {
	case t == q.word:
		return 1
	case q.prefix && strings.HasPrefix(t, q.word):
		return 1
	case st == q.stem && q.stem != "":
		return stemWeight
	case len(q.word) >= minPrefix && strings.HasPrefix(t, q.word):
		return prefixWeight
	}
	return 0
}

// stem is a light English stem of a lower-case word: a plural or verb
// ending and a final e taken off (greetings, greeted, greeting → greet;
// matches → match; running → run; libraries → library; create, creating
// → creat). It is a match key, never shown. Words of other scripts, words
// with digits and short words are their own stem.
func stem(w string) string {
	if len(w) < 4 || !asciiLetters(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "is"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = undouble(w[:len(w)-3])
	case strings.HasSuffix(w, "ied") && len(w) >= 5:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = undouble(w[:len(w)-2])
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	return w
}

// undouble takes off a doubled final consonant (runn → run, stopp →
// stop), but not a doubled l, s or z (fall, pass, buzz).
func undouble(w string) string {
	n := len(w)
	if n >= 3 && w[n-1] == w[n-2] && !strings.ContainsRune("aeiouylsz", rune(w[n-1])) {
		return w[:n-1]
	}
	return w
}

func asciiLetters(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return false
		}
	}
	return true
}
