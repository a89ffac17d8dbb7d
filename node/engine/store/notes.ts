// The user's and the model's notes on an incident: the `annotations` table (a range, a panel, a text)
// and the `diagnoses` table (the latest diagnosis JSON of each incident). Small writes on the read
// connection: they never wait for an import (store.ts).
import type { Annotation } from '../../../common/contract/types';
import type { Db } from './db';
import { insertSql } from './tables';

export function listAnnotations(db: Db, incidentId: number): Annotation[] {
  return db.prepare('SELECT * FROM annotations WHERE incident_id = ? ORDER BY start_ms, id').all(incidentId) as Annotation[];
}

export function addAnnotation(db: Db, a: Omit<Annotation, 'id' | 'created_ms'>): Annotation {
  const id = Number(
    db.prepare(insertSql('annotations', { columns: ['incident_id', 'start_ms', 'end_ms', 'panel', 'text', 'author', 'created_ms'] })).run(a.incident_id, Math.round(a.start_ms), Math.round(a.end_ms), a.panel, a.text, a.author, Date.now()).lastInsertRowid,
  );
  return db.prepare('SELECT * FROM annotations WHERE id = ?').get(id) as Annotation;
}

export function updateAnnotation(db: Db, id: number, text: string): Annotation | null {
  db.prepare('UPDATE annotations SET text = ? WHERE id = ?').run(text, id);
  return (db.prepare('SELECT * FROM annotations WHERE id = ?').get(id) as Annotation | undefined) ?? null;
}

export function deleteAnnotation(db: Db, id: number): void {
  db.prepare('DELETE FROM annotations WHERE id = ?').run(id);
}

/** The JSON of the incident's most recently saved diagnosis, or null. */
export function latestDiagnosis(db: Db, incidentId: number): string | null {
  return (db.prepare('SELECT json FROM diagnoses WHERE incident_id = ? ORDER BY created_ms DESC, rowid DESC LIMIT 1').pluck().get(incidentId) as string | undefined) ?? null;
}

export function saveDiagnosis(db: Db, incidentId: number, json: string): void {
  db.transaction(() => {
    db.prepare('DELETE FROM diagnoses WHERE incident_id = ?').run(incidentId);
    db.prepare(insertSql('diagnoses')).run(incidentId, json, Date.now());
  })();
}
