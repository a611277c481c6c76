// @ts-check
/**
 * {@link useApi}: loads a GET endpoint into component state and reloads it on demand or when
 * the server's `changed` event names one of `refreshOn` (no polling).
 *
 * @module
 */
import { api, subscribe } from './api.js';
import { useCallback, useEffect, useState } from './html.js';
import { errorText } from '../components/text.js';

/**
 * @template T
 * @typedef {{ data: T | undefined, error: string, loading: boolean, reload: () => Promise<void> }} Loaded
 */

/**
 * @template T
 * @param {string | null} path the GET path, or null to load nothing
 * @param {string[]} [refreshOn] `changed` event `what` values that trigger a reload
 * @returns {Loaded<T>}
 */
export function useApi(path, refreshOn = []) {
  const [data, setData] = useState(/** @type {T | undefined} */ (undefined));
  const [error, setError] = useState('');
  const [loading, setLoading] = useState(path !== null);
  const reload = useCallback(async () => {
    if (path === null) return;
    setLoading(true);
    try {
      setData(await api(path));
      setError('');
    } catch (e) {
      setError(errorText(e));
    } finally {
      setLoading(false);
    }
  }, [path]);
  useEffect(() => {
    void reload();
    if (refreshOn.length === 0) return undefined;
    return subscribe({ changed: (d) => (refreshOn.includes(d?.what) ? void reload() : undefined) });
  }, [reload, refreshOn.join(',')]);
  return { data, error, loading, reload };
}
