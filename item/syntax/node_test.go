package syntax

import (
	"strconv"
	"strings"
	"testing"
)

func TestEffectiveFields(t *testing.T) {
	keys := func(fs []*Field) string {
		var s []string
		for _, f := range fs {
			s = append(s, f.Key+"="+f.Value.String())
		}
		return strings.Join(s, " ")
	}
	m := NewMap(Pos{})
	for _, kv := range [][2]string{{"a", "1"}, {"b", "2"}, {"a", "3"}, {"c", "4"}} {
		m.Fields = append(m.Fields, &Field{Key: kv[0], Value: NewString(kv[1], Pos{})})
	}
	if got := keys(m.EffectiveFields()); got != "b=2 a=3 c=4" {
		t.Errorf("duplicates: %s", got)
	}
	big := NewMap(Pos{})
	for i := 0; i < 12; i++ {
		big.Fields = append(big.Fields, &Field{Key: strconv.Itoa(i % 10), Value: NewInt(int64(i), Pos{})})
	}
	if got := len(big.EffectiveFields()); got != 10 {
		t.Errorf("12 fields over 10 keys: %d", got)
	}
	if m.Get("a").String() != "3" {
		t.Error("Get disagrees with EffectiveFields")
	}
	if NewList(Pos{}).EffectiveFields() != nil || (*Node)(nil).EffectiveFields() != nil {
		t.Error("fields of a non-map")
	}
}
