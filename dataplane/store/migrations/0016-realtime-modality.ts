/** Models may declare the realtime modality (WebSocket sessions on /v1/realtime). */
export const sql = `
ALTER TABLE models DROP CONSTRAINT IF EXISTS models_modality_check;
ALTER TABLE models ADD CONSTRAINT models_modality_check
  CHECK (modality IN ('text', 'embedding', 'audio', 'multimodal', 'realtime'));
`;
