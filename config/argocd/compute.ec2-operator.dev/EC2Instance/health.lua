-- Argo CD health check for EC2Instance (compute.ec2-operator.dev/v1alpha1).
-- It reads the conditions the operator writes, as kstatus does: an object being
-- deleted, or whose spec the operator has not seen yet, is Progressing; Stalled=True
-- (the user must act) is Degraded; Ready=True is Healthy (a stopped or hibernated
-- instance that is meant to be is Ready too); Ready=False while the operator works on
-- it (Reconciling=True) is Progressing. The message is the condition's, AWS's words
-- included.
local hs = {status = "Progressing", message = "Waiting for the operator"}

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Deleting: the instance is terminated or released as deletionPolicy says"
  return hs
end
if obj.status == nil or obj.status.conditions == nil then
  return hs
end
local generation = obj.metadata.generation or 0
local observed = obj.status.observedGeneration or 0
if observed < generation then
  hs.message = "Waiting for the operator to act on generation " .. generation
  return hs
end

local conditions = {}
for _, c in ipairs(obj.status.conditions) do
  conditions[c.type] = c
end
local function describe(c)
  local text = c.reason or ""
  if c.message ~= nil and c.message ~= "" then
    text = text .. ": " .. c.message
  end
  return text
end

local stalled, ready, reconciling = conditions["Stalled"], conditions["Ready"], conditions["Reconciling"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready)
elseif ready ~= nil then
  hs.message = describe(ready)
  if reconciling ~= nil and reconciling.status ~= "True" then
    hs.status = "Degraded"
  end
end
return hs
