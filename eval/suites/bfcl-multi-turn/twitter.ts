/**
 * BFCL's TwitterAPI, ported to TypeScript from ShishirPatil/gorilla
 * (`berkeley-function-call-leaderboard/bfcl_eval/eval_checker/multi_turn_eval/func_source_code/posting_api.py`
 * at commit 6ea5797, Apache-2.0: see data/LICENSE). Each method takes the call's keyword arguments and
 * returns what the Python method returns; errors are returned as `{ error }` values, as in BFCL.
 *
 * Differences, none of which the suite's tasks reach: tweets and comments are keyed by the id's decimal
 * text (Python keys tweets by int, and comments loaded from a scenario by string but new ones by int —
 * no task of the suite starts with comments); `post_tweet`'s default `tags`/`mentions` are a fresh list
 * per call (Python shares one mutable default list between calls).
 */

type Args = Record<string, unknown>;

export interface Tweet {
  id: number;
  username: string;
  content: string;
  tags: string[];
  mentions: string[];
}

/** The public state, compared by the check (the attribute names of the Python class). */
export interface TwitterState {
  username: string;
  password: string;
  authenticated: boolean;
  tweets: Record<string, Tweet>;
  comments: Record<string, { username: string; content: string }[]>;
  retweets: Record<string, number[]>;
  following_list: string[];
  tweet_counter: number;
}

const pick = <T>(scenario: Args, key: string, fallback: T): T =>
  structuredClone(Object.hasOwn(scenario, key) ? (scenario[key] as T) : fallback);

const notAuthenticated = (action: string) => ({ error: `User not authenticated. Please authenticate before ${action}.` });
const notFound = (id: unknown) => ({ error: `Tweet with ID ${String(id)} not found.` });

export class Twitter {
  state: TwitterState;

  /** `_load_scenario`: the task's initial configuration over the defaults. */
  constructor(scenario: Args = {}) {
    this.state = {
      username: pick(scenario, 'username', 'john'),
      password: pick(scenario, 'password', 'john123'),
      authenticated: pick(scenario, 'authenticated', false),
      tweets: pick(scenario, 'tweets', {}),
      comments: pick(scenario, 'comments', {}),
      retweets: pick(scenario, 'retweets', {}),
      following_list: pick(scenario, 'following_list', ['alice', 'bob']),
      tweet_counter: pick(scenario, 'tweet_counter', 0),
    };
  }

  private tweet(id: unknown): Tweet | undefined {
    return typeof id === 'number' && Object.hasOwn(this.state.tweets, String(id)) ? this.state.tweets[String(id)] : undefined;
  }

  authenticate_twitter({ username, password }: Args) {
    if (username === this.state.username && password === this.state.password) {
      this.state.authenticated = true;
      return { authentication_status: true };
    }
    return { authentication_status: false };
  }

  posting_get_login_status() {
    return { login_status: Boolean(this.state.authenticated) };
  }

  post_tweet({ content, tags = [], mentions = [] }: Args) {
    if (!this.state.authenticated) return notAuthenticated('posting');
    const tweet: Tweet = {
      id: this.state.tweet_counter,
      username: this.state.username,
      content: content as string,
      tags: tags as string[],
      mentions: mentions as string[],
    };
    this.state.tweets[String(this.state.tweet_counter)] = tweet;
    this.state.tweet_counter += 1;
    return tweet;
  }

  retweet({ tweet_id }: Args) {
    if (!this.state.authenticated) return notAuthenticated('retweeting');
    if (!this.tweet(tweet_id)) return notFound(tweet_id);
    const mine = (this.state.retweets[this.state.username] ??= []);
    if (mine.includes(tweet_id as number)) return { retweet_status: 'Already retweeted' };
    mine.push(tweet_id as number);
    return { retweet_status: 'Successfully retweeted' };
  }

  comment({ tweet_id, comment_content }: Args) {
    if (!this.state.authenticated) return notAuthenticated('commenting');
    if (!this.tweet(tweet_id)) return notFound(tweet_id);
    (this.state.comments[String(tweet_id)] ??= []).push({ username: this.state.username, content: comment_content as string });
    return { comment_status: 'Comment added successfully' };
  }

  mention({ tweet_id, mentioned_usernames }: Args) {
    const tweet = this.tweet(tweet_id);
    if (!tweet) return notFound(tweet_id);
    tweet.mentions.push(...(mentioned_usernames as string[]));
    return { mention_status: 'Users mentioned successfully' };
  }

  follow_user({ username_to_follow }: Args) {
    if (!this.state.authenticated) return notAuthenticated('following');
    if (this.state.following_list.includes(username_to_follow as string)) return { follow_status: false };
    this.state.following_list.push(username_to_follow as string);
    return { follow_status: true };
  }

  list_all_following() {
    if (!this.state.authenticated) return notAuthenticated('listing following');
    return { following_list: this.state.following_list };
  }

  unfollow_user({ username_to_unfollow }: Args) {
    if (!this.state.authenticated) return notAuthenticated('unfollowing');
    const at = this.state.following_list.indexOf(username_to_unfollow as string);
    if (at < 0) return { unfollow_status: false };
    this.state.following_list.splice(at, 1);
    return { unfollow_status: true };
  }

  get_tweet({ tweet_id }: Args) {
    return this.tweet(tweet_id) ?? notFound(tweet_id);
  }

  get_user_tweets({ username }: Args) {
    return Object.values(this.state.tweets).filter((tweet) => tweet.username === username);
  }

  search_tweets({ keyword }: Args) {
    const wanted = String(keyword).toLowerCase();
    return Object.values(this.state.tweets).filter(
      (tweet) => tweet.content.toLowerCase().includes(wanted) || tweet.tags.some((tag) => tag.toLowerCase() === wanted),
    );
  }

  get_tweet_comments({ tweet_id }: Args) {
    if (!this.tweet(tweet_id)) return notFound(tweet_id);
    return this.state.comments[String(tweet_id)] ?? [];
  }

  get_user_stats({ username }: Args) {
    return {
      tweet_count: Object.values(this.state.tweets).filter((tweet) => tweet.username === username).length,
      following_count: username === this.state.username ? this.state.following_list.length : 0,
      retweet_count: (Object.hasOwn(this.state.retweets, String(username)) ? this.state.retweets[String(username)] : [])?.length ?? 0,
    };
  }
}
