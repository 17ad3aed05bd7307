package eserr

import "bytes"

// TokenName names the JSON token a value starts with, as Jackson does in
// Elasticsearch's error messages (START_OBJECT, VALUE_STRING, ...).
func TokenName(v []byte) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "VALUE_NULL"
	}
	switch v[0] {
	case '{':
		return "START_OBJECT"
	case '[':
		return "START_ARRAY"
	case '"':
		return "VALUE_STRING"
	case 't', 'f':
		return "VALUE_BOOLEAN"
	case 'n':
		return "VALUE_NULL"
	default:
		return "VALUE_NUMBER"
	}
}
