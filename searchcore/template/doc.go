// Package template renders Elasticsearch search templates: mustache (with
// github.com/cbroglie/mustache) plus what Elasticsearch adds to it.
//
//   - {{var}} is escaped for a JSON string (quotes, backslashes, control
//     characters); {{{var}}} and {{&var}} are written as they are.
//   - {{#toJson}}name{{/toJson}} writes an object or array parameter as JSON.
//   - {{#join}}name{{/join}} joins an array with commas, and
//     {{#join delimiter='<d>'}}name{{/join delimiter='<d>'}} with <d>.
//   - {{#url}}...{{/url}} applies HTML form encoding (java.net.URLEncoder).
//   - Sections, inverted sections (defaults: {{var}}{{^var}}default{{/var}}),
//     {{.}} in array sections, dotted names and array indices ({{list.0}},
//     {{list.size}}).
//
// Parameters are decoded with json.Decoder.UseNumber, so numbers are written
// exactly as they were sent (1000000 never becomes 1e+06). Templates are
// sandboxed: partials ({{> name}}) are refused, nothing but mustache runs.
//
// Example:
//
//	t, err := template.Compile(`{"query":{"terms":{"tag":{{#toJson}}tags{{/toJson}}}},"size":{{size}}{{^size}}10{{/size}}}`)
//	params, err := template.DecodeParams([]byte(`{"tags":["a","b"]}`))
//	out, err := t.Render(params) // {"query":{"terms":{"tag":["a","b"]}},"size":10}
//	err = template.CheckJSON(out) // nil: the output is one JSON value
package template
