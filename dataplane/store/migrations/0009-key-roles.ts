/** Roles for compliance and the Kubernetes operator beside admin and member (see docs/api.md). */
export const sql = `
ALTER TABLE api_keys DROP CONSTRAINT api_keys_role_check;
ALTER TABLE api_keys ADD CONSTRAINT api_keys_role_check
  CHECK (role IN ('admin', 'member', 'compliance', 'operator'));
`;
