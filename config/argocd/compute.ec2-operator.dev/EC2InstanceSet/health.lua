-- Argo CD health check for EC2InstanceSet (compute.ec2-operator.dev/v1alpha1).
-- It reads the conditions the operator writes, as kstatus does: a set being deleted,
-- or whose spec the operator has not seen yet, is Progressing; Stalled=True (the API
-- server refused an instance the template asks for) is Degraded; Ready=True (replicas
-- instances of the current template, all available) is Healthy; otherwise the set is
-- creating, replacing or waiting for instances: Progressing, with the counts.
local hs = {status = "Progressing", message = "Waiting for the operator"}

if obj.metadata ~= nil and obj.metadata.deletionTimestamp ~= nil then
  hs.message = "Deleting: its EC2Instances go with it, each as its deletionPolicy says"
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

local stalled, ready = conditions["Stalled"], conditions["Ready"]
if stalled ~= nil and stalled.status == "True" then
  hs.status = "Degraded"
  hs.message = describe(stalled)
elseif ready ~= nil and ready.status == "True" then
  hs.status = "Healthy"
  hs.message = describe(ready)
elseif ready ~= nil then
  hs.message = describe(ready)
end
return hs
