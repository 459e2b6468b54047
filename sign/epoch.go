package sign

import (
	"fmt"
	"strconv"
	"time"
)

// SourceDateEpoch reads SOURCE_DATE_EPOCH through getenv (os.Getenv): the
// time that reproducible builds fix, in UTC. set is false when the variable
// is unset or empty; a value that is not a non-negative number of seconds
// is an error.
func SourceDateEpoch(getenv func(string) string) (t time.Time, set bool, err error) {
	s := getenv("SOURCE_DATE_EPOCH")
	if s == "" {
		return time.Time{}, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, true, fmt.Errorf("SOURCE_DATE_EPOCH=%q is not a number of seconds since 1970", s)
	}
	return time.Unix(n, 0).UTC(), true, nil
}

// SigningTime is the time a signature records: SOURCE_DATE_EPOCH when it
// is set (reproducible signing), else now, in UTC.
func SigningTime(getenv func(string) string) (time.Time, error) {
	t, set, err := SourceDateEpoch(getenv)
	if err != nil || set {
		return t, err
	}
	return time.Now().UTC(), nil
}
