package query

import searchcore "github.com/quarry-search/quarry/searchcore/eserr"

// DefaultMaxResultWindow is index.max_result_window's default.
const DefaultMaxResultWindow = 10000

// ValidateWindow checks from and size of a search against
// index.max_result_window with ES's messages (the root cause ES wraps in
// search_phase_execution_exception). Callers pass resolved values (from 0
// and size 10 when not given).
func ValidateWindow(from, size, maxResultWindow int) error {
	if from < 0 {
		return searchcore.IllegalArgument("[from] parameter cannot be negative")
	}
	if size < 0 {
		return searchcore.IllegalArgument("[size] parameter cannot be negative, found [%d]", size)
	}
	if window := from + size; window > maxResultWindow {
		return searchcore.IllegalArgument("Result window is too large, from + size must be less than or equal to: [%d] but was [%d]. "+
			"See the scroll api for a more efficient way to request large data sets. "+
			"This limit can be set by changing the [index.max_result_window] index level setting.", maxResultWindow, window)
	}
	return nil
}

// ValidateScrollSize checks the batch size of a scroll search against
// index.max_result_window.
func ValidateScrollSize(size, maxResultWindow int) error {
	if size < 0 {
		return searchcore.IllegalArgument("[size] parameter cannot be negative, found [%d]", size)
	}
	if size > maxResultWindow {
		return searchcore.IllegalArgument("Batch size is too large, size must be less than or equal to: [%d] but was [%d]. "+
			"Scroll batch sizes cost as much memory as result windows so they are controlled by the "+
			"[index.max_result_window] index level setting.", maxResultWindow, size)
	}
	return nil
}
