/**
 * Words too common to decide whether a document answers a question typed as a sentence
 * ("how do I configure the proxy"). They are still searched; they only stop counting when the
 * sentence-query fallback looks for documents that match some of the words.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  `a about above after again against all am an and any are aren't as at be because been before being
  below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't down
  during each few for from further get gets got had hadn't has hasn't have haven't having he her here
  hers herself him himself his how i i'm if in into is isn't it it's its itself just let's me more most
  mustn't my myself need no nor not of off on once only or other ought our ours ourselves out over own
  same shall she should shouldn't so some such than that that's the their theirs them themselves then
  there there's these they this those through to too under until up use used using very via was wasn't
  we were weren't what what's when where which while who whom why will with won't would wouldn't you
  your yours yourself yourselves`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** True when `word` (any case) is a stop word. */
export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word.toLowerCase().replace(/\u2019/g, "'"));
}
