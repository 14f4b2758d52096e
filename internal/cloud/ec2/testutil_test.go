package ec2

import (
	"errors"
	"strings"
)

func asError(err error, target **Error) bool {
	if errors.As(err, target) {
		return true
	}
	*target = &Error{}
	return false
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }

func errMessage(err error) string {
	var e *Error
	asError(err, &e)
	return e.Message
}
