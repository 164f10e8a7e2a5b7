#include <bits/stdc++.h>
using namespace std;

bool byCountThenWord(pair<string, int> a, pair<string, int> b) {
    if (a.second != b.second) return a.second > b.second;
    return a.first < b.first;
}

int main() {
    int k;
    string line;
    getline(cin, line);
    k = atoi(line.c_str());

    map<string, int> freq;
    string text, word;
    while (getline(cin, line)) {
        for (size_t i = 0; i <= line.size(); i++) {
            char ch = i < line.size() ? line[i] : ' ';
            if (isalpha((unsigned char)ch) && (unsigned char)ch < 128) {
                word += (char)tolower(ch);
            } else if (!word.empty()) {
                freq[word]++;
                word.clear();
            }
        }
    }

    vector<pair<string, int>> items(freq.begin(), freq.end());
    sort(items.begin(), items.end(), byCountThenWord);
    for (int i = 0; i < (int)items.size() && i < k; i++) {
        cout << items[i].first << " " << items[i].second << "\n";
    }
    return 0;
}
