package paimon

import (
	"fmt"
)

// ---- generic record access ----

// rec wraps a decoded Avro record for typed, by-name field access. The first
// error sticks; later accesses return zero values.
type rec struct {
	m    map[string]any // generic records (e.g. from an ORC decoder)
	a    *avroRecord    // records from the Avro decoder
	path string
	err  error
}

func asRec(v any, path string) (*rec, error) {
	switch v := v.(type) {
	case *avroRecord:
		return &rec{a: v, path: path}, nil
	case map[string]any:
		return &rec{m: v, path: path}, nil
	case nil:
		return nil, fmt.Errorf("%s is null", path)
	}
	return nil, fmt.Errorf("%s is %T, not a record", path, v)
}

func (r *rec) lookup(name string) (any, bool) {
	if r.a != nil {
		return r.a.get(name)
	}
	v, ok := r.m[name]
	return v, ok
}

func (r *rec) fail(name, format string, a ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("field %s%s: %s", r.path, name, fmt.Sprintf(format, a...))
	}
}

// get returns a field; required fields must be present and non-null.
func (r *rec) get(name string, required bool) any {
	v, ok := r.lookup(name)
	if required && (!ok || v == nil) {
		if !ok {
			r.fail(name, "missing")
		} else {
			r.fail(name, "is null")
		}
	}
	return v
}

func (r *rec) long(name string) int64 {
	switch v := r.get(name, true).(type) {
	case int64:
		return v
	case int32:
		return int64(v)
	case nil:
		return 0
	default:
		r.fail(name, "is %T, want long", v)
		return 0
	}
}

func (r *rec) int(name string) int32 {
	switch v := r.get(name, true).(type) {
	case int32:
		return v
	case nil:
		return 0
	default:
		r.fail(name, "is %T, want int", v)
		return 0
	}
}

func (r *rec) optLong(name string) *int64 {
	switch v := r.get(name, false).(type) {
	case int64:
		return &v
	case int32:
		x := int64(v)
		return &x
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want long", v)
		return nil
	}
}

func (r *rec) optInt(name string) *int32 {
	switch v := r.get(name, false).(type) {
	case int32:
		return &v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want int", v)
		return nil
	}
}

func (r *rec) str(name string) string {
	switch v := r.get(name, true).(type) {
	case string:
		return v
	case nil:
		return ""
	default:
		r.fail(name, "is %T, want string", v)
		return ""
	}
}

func (r *rec) optStr(name string) *string {
	switch v := r.get(name, false).(type) {
	case string:
		return &v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want string", v)
		return nil
	}
}

func (r *rec) bytes(name string) []byte {
	switch v := r.get(name, true).(type) {
	case []byte:
		return v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want bytes", v)
		return nil
	}
}

func (r *rec) optBytes(name string) []byte {
	switch v := r.get(name, false).(type) {
	case []byte:
		if v == nil {
			return []byte{}
		}
		return v
	case nil:
		return nil
	default:
		r.fail(name, "is %T, want bytes", v)
		return nil
	}
}

func (r *rec) strings(name string, required bool) []string {
	v := r.get(name, required)
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.fail(name, "is %T, want array<string>", v)
		return nil
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, ok := e.(string)
		if !ok {
			r.fail(name, "element is %T, want string", e)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (r *rec) sub(name string, required bool) *rec {
	v := r.get(name, required)
	if v == nil {
		return nil
	}
	s, err := asRec(v, r.path+name+".")
	if err != nil {
		r.fail(name, "%v", err)
		return nil
	}
	return s
}

func (r *rec) stats(name string) SimpleStats {
	s := r.sub(name, true)
	if s == nil {
		return SimpleStats{}
	}
	st := SimpleStats{MinValues: s.bytes("_MIN_VALUES"), MaxValues: s.bytes("_MAX_VALUES")}
	if v := s.get("_NULL_COUNTS", false); v != nil {
		a, ok := v.([]any)
		if !ok {
			s.fail("_NULL_COUNTS", "is %T, want array", v)
		} else {
			st.NullCounts = make([]*int64, len(a))
			for i, e := range a {
				switch x := e.(type) {
				case int64:
					st.NullCounts[i] = &x
				case nil:
				default:
					s.fail("_NULL_COUNTS", "element is %T, want long", e)
				}
			}
		}
	}
	if s.err != nil && r.err == nil {
		r.err = s.err
	}
	return st
}

func (r *rec) done(into *error) {
	if r.err != nil && *into == nil {
		*into = r.err
	}
}

func checkVersion(r *rec, want int32, what string) error {
	v := r.int("_VERSION")
	if r.err != nil {
		return r.err
	}
	if v != want {
		return fmt.Errorf("%w: %s _VERSION %d (expected %d; files written by this Paimon version must be recreated)", ErrUnsupported, what, v, want)
	}
	return nil
}
