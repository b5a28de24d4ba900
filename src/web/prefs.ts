// What the player chose on this device (Settings): kept in localStorage, never sent anywhere.

const SOUND_KEY = 'chess.sound';

export const prefs = {
  /** Move and capture sounds: off unless switched on. */
  sound: (): boolean => localStorage.getItem(SOUND_KEY) === 'on',
  setSound(on: boolean): void {
    if (on) localStorage.setItem(SOUND_KEY, 'on');
    else localStorage.removeItem(SOUND_KEY);
  },
};
