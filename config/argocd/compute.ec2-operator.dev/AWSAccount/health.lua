-- Argo CD health check for AWSAccount (compute.ec2-operator.dev/v1alpha1).
-- Ready=True (reason Verified) means the operator assumed the account's role and read
-- its identity: Healthy. Ready=False (AssumeRoleFailed, with AWS's message) needs an
-- administrator to fix the role or its trust policy: Degraded. A deletion waits until
-- no EC2Instance uses the account (DeletionBlocked): Progressing, with the count.
local hs = {status = "Progressing", message = "Waiting for the operator to verify the account"}

local conditions = {}
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    conditions[c.type] = c
  end
end

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  local blocked = conditions["DeletionBlocked"]
  if blocked ~= nil and blocked.status == "True" then
    hs.message = "Deleting, once no EC2Instance uses the account: " .. (blocked.message or "")
  else
    hs.message = "Deleting"
  end
  return hs
end
local generation = obj.metadata.generation or 0
local observed = 0
if obj.status ~= nil then
  observed = obj.status.observedGeneration or 0
end
if observed < generation then
  return hs
end

local ready = conditions["Ready"]
if ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = ready.message or ready.reason
elseif ready ~= nil then
  hs.status = "Degraded"
  hs.message = (ready.reason or "") .. ": " .. (ready.message or "")
end
return hs
