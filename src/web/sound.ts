// Move, capture and "your turn" sounds, made by WebAudio (no files to fetch), when the player
// switched them on (src/web/prefs.ts).

import { prefs } from './prefs.ts';

export type SoundKind = 'move' | 'capture' | 'end';

const TONES: Record<SoundKind, { freq: number; ms: number; type: OscillatorType; gain: number }[]> = {
  move: [{ freq: 660, ms: 60, type: 'triangle', gain: 0.25 }],
  capture: [{ freq: 220, ms: 90, type: 'square', gain: 0.12 }, { freq: 440, ms: 60, type: 'triangle', gain: 0.2 }],
  end: [{ freq: 523, ms: 140, type: 'sine', gain: 0.25 }, { freq: 784, ms: 220, type: 'sine', gain: 0.25 }],
};

let audio: AudioContext | undefined;

export function playSound(kind: SoundKind): void {
  if (!prefs.sound()) return;
  try {
    audio ??= new AudioContext();
    let at = audio.currentTime;
    for (const tone of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = tone.type;
      osc.frequency.value = tone.freq;
      gain.gain.setValueAtTime(tone.gain, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + tone.ms / 1000);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + tone.ms / 1000);
      at += tone.ms / 1000;
    }
  } catch {
    // no audio here: silence
  }
}
