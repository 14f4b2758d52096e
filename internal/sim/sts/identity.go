package stssim

import "net/url"

// getCallerIdentity answers with the account, ARN and unique id of the
// identity whose access key signed the request. For an IAM user the UserId
// is the user's AIDA... id; for an assumed role it is the role's AROA... id
// and the session name, joined by a colon.
func (s *Sim) getCallerIdentity(caller *accessKey, _ url.Values, x *xmlBuilder) *apiError {
	x.leaf("Arn", caller.arn)
	x.leaf("UserId", caller.userID)
	x.leaf("Account", caller.accountID)
	return nil
}
